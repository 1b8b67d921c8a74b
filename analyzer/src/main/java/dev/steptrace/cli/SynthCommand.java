package dev.steptrace.cli;

import dev.steptrace.report.Fmt;
import dev.steptrace.synth.ExpectedWriter;
import dev.steptrace.synth.SynthConfig;
import dev.steptrace.synth.SynthFormat;
import dev.steptrace.synth.Synthesizer;
import dev.steptrace.classify.Category;
import dev.steptrace.synth.model.Preset;
import dev.steptrace.synth.model.WorkloadConfig;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

@Command(name = "synth", mixinStandardHelpOptions = true,
        description = {"Write a realistic synthetic capture and EXPECTED.json, the ground truth of its analysis.",
                "The capture is one Kineto trace, or one Nsight Systems SQLite export, per rank; EXPECTED.json "
                        + "holds what an analysis of it must reproduce. Same options and seed give identical bytes (Kineto)"
                        + " or identical tables (nsys-sqlite). Presets: moe-tp8-graph (vLLM decode with CUDA graphs), "
                        + "moe-tp8-eager (no CUDA graphs)."})
public final class SynthCommand implements Callable<Integer> {
    @Option(names = "--preset", required = true, paramLabel = "NAME", description = "Workload: ${COMPLETION-CANDIDATES}.",
            completionCandidates = PresetNames.class)
    String preset;

    @Option(names = "--ranks", required = true, paramLabel = "N", description = "Ranks (one trace file each).")
    int ranks;

    @Option(names = "--steps", required = true, paramLabel = "N", description = "Decode steps (at least; see --target-size).")
    int steps;

    @Option(names = "--target-size", paramLabel = "SIZE",
            description = "Add decode steps until every rank file holds at least SIZE of uncompressed JSON (e.g. 2GB).")
    String targetSize;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Directory for the traces and EXPECTED.json.")
    Path out;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "Seed of the jitter and waits (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "kineto",
            description = "kineto (torch.profiler JSON, default) or nsys-sqlite (nsys export --type sqlite, rank<N>.sqlite).")
    String format;

    @Option(names = "--no-gzip", description = "Write plain .json files instead of .json.gz.")
    boolean noGzip;

    @Option(names = "--batch", paramLabel = "B", defaultValue = "1", description = "Decode batch size (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--prefill-steps", paramLabel = "P", defaultValue = "1",
            description = "2048-token prefill steps before decode (default: ${DEFAULT-VALUE}).")
    int prefillSteps;

    @Option(names = "--scale", paramLabel = "CATEGORY=FACTOR",
            description = "Multiply the durations of a category (allreduce, comm_other, attention, moe_gemm, gemm, routing,"
                    + " memcpy, other); repeatable.")
    Map<String, Double> scales = new LinkedHashMap<>();

    @Option(names = "--slow-rank", paramLabel = "RANK=FACTOR",
            description = "Multiply the compute kernel durations of a rank (a straggler the others wait for); repeatable.")
    Map<Integer, Double> slowRanks = new LinkedHashMap<>();

    @Option(names = "--clock-offset", paramLabel = "RANKS=OFFSET",
            description = "Shift these ranks' clocks (another host's), e.g. 4-7=250us or 1=-1.5ms; units ns, us, ms, s;"
                    + " repeatable. EXPECTED.json gives every rank's offset.")
    Map<String, String> clockOffsets = new LinkedHashMap<>();

    @Option(names = "--comm-stream",
            description = "Run the collectives on a stream of their own, under the compute that follows them (as two-batch overlap does).")
    boolean commStream;

    @Option(names = "--fixed-transfers",
            description = "Collectives' transfers keep their nominal duration whatever the waits before them (as on"
                    + " hardware): a straggler lengthens the step by its extra work. Default: the transfer shrinks by the"
                    + " mean wait, so the presets' per-step means do not depend on the ranks' skew.")
    boolean fixedTransfers;

    @Option(names = "--host-overhead", paramLabel = "FACTOR", defaultValue = "1",
            description = "Multiply the host's time per eager launch (op dispatch, launch call): from about 2 the eager"
                    + " decode step waits for the CPU (launch-bound; default: ${DEFAULT-VALUE}).")
    double hostOverhead;

    @Option(names = "--layers", paramLabel = "L", defaultValue = "" + WorkloadConfig.MAX_LAYERS,
            description = "The model's first L layers per step, 1 to ${DEFAULT-VALUE} (default: all): a small rank file,"
                    + " the same category times per step.")
    int layers;

    @Option(names = {"-q", "--quiet"}, description = "No progress and no summary on stderr.")
    boolean quiet;

    @Option(names = "--debug", description = "Print stack traces of failures.")
    boolean debug;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The preset ids, for --help. */
    static final class PresetNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Preset.ids().iterator();
        }
    }

    @Override
    public Integer call() throws Exception {
        SynthConfig config = config();
        Synthesizer synth = new Synthesizer(config);
        PrintWriter out = spec.commandLine().getOut();
        long start = System.nanoTime();
        Synthesizer.Plan plan = synth.plan();
        Synthesizer.Result result;
        Progress progress = Progress.start(quiet, "synth", synth.bytesWritten(),
                new java.util.concurrent.atomic.AtomicLong(plan.estimatedJsonBytes()), null, null);
        try {
            result = synth.write(plan);
        } catch (Synthesizer.OccupiedOutputException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        } finally {
            if (progress != null) {
                progress.close();
            }
        }
        for (Path p : result.traces()) {
            out.println(p);
        }
        out.println(result.expected());
        out.flush();
        if (!quiet) {
            double seconds = (System.nanoTime() - start) / 1e9;
            spec.commandLine().getErr().printf(Locale.ROOT, "steptrace: wrote %d trace(s) with %d decode step(s), %s of %s"
                            + " in %s s (%s/s); ground truth in %s%n", result.traces().size(), result.decodeSteps(),
                    Fmt.size(result.jsonBytes()), config.format() == SynthFormat.KINETO ? "JSON" : "SQLite",
                    Fmt.seconds(seconds), Fmt.size((long) (result.jsonBytes() / seconds)), ExpectedWriter.FILE_NAME);
        }
        return Main.OK;
    }

    /** {@code --clock-offset} as nanoseconds by rank; a rank named twice takes the last offset. */
    private Map<Integer, Long> clockOffsets(CommandLine cl) {
        Map<Integer, Long> byRank = new TreeMap<>();
        for (Map.Entry<String, String> e : clockOffsets.entrySet()) {
            long ns;
            List<Integer> ranksShifted;
            try {
                ranksShifted = NumberList.parse(e.getKey());
                ns = nanos(e.getValue());
            } catch (IllegalArgumentException ex) {
                throw new CommandLine.ParameterException(cl, "--clock-offset " + e.getKey() + "=" + e.getValue() + ": "
                        + ex.getMessage());
            }
            for (int r : ranksShifted) {
                byRank.put(r, ns);
            }
        }
        return byRank;
    }

    /** {@code 250us}, {@code -1.5ms}, {@code 800ns}, {@code 2s} as nanoseconds. */
    static long nanos(String text) {
        Matcher m = DURATION.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("the offset needs a number and a unit: ns, us, ms or s (e.g. 250us)");
        }
        long unit = switch (m.group(2)) {
            case "ns" -> 1L;
            case "us", "µs" -> 1_000L;
            case "ms" -> 1_000_000L;
            default -> 1_000_000_000L;
        };
        return new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit)).setScale(0, RoundingMode.HALF_EVEN)
                .longValueExact();
    }

    private static final Pattern DURATION = Pattern.compile("([-+]?\\d+(?:\\.\\d+)?)\\s*(ns|us|µs|ms|s)");

    /** Validates the options; every problem is a usage error (exit 2). */
    private SynthConfig config() {
        CommandLine cl = spec.commandLine();
        Preset p = Preset.byId(preset);
        if (p == null) {
            throw new CommandLine.ParameterException(cl, "unknown --preset '" + preset + "' (known: "
                    + String.join(", ", Preset.ids()) + ")");
        }
        Map<Category, Double> factors = new EnumMap<>(Category.class);
        for (Map.Entry<String, Double> e : scales.entrySet()) {
            Category c = Category.ofId(e.getKey()).orElse(null);
            if (c == null) {
                throw new CommandLine.ParameterException(cl, "--scale " + e.getKey() + "=" + e.getValue()
                        + ": unknown category (use allreduce, comm_other, attention, moe_gemm, gemm, routing, memcpy, other)");
            }
            factors.put(c, e.getValue());
        }
        SynthFormat fmt = SynthFormat.ofId(format);
        if (fmt == null) {
            throw new CommandLine.ParameterException(cl, "unknown --format '" + format + "' (known: kineto, nsys-sqlite)");
        }
        long target = 0;
        if (targetSize != null) {
            try {
                target = Bytes.parse(targetSize);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(cl, "--target-size: " + e.getMessage());
            }
        }
        try {
            WorkloadConfig workload = new WorkloadConfig(p, ranks, batch, seed, factors, slowRanks, clockOffsets(cl),
                    commStream, hostOverhead, layers, fixedTransfers);
            return new SynthConfig(workload, steps, prefillSteps, target, !noGzip, out, fmt);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        }
    }
}
