package dev.steptrace.synth;

import dev.steptrace.synth.kineto.KinetoTraceWriter;
import dev.steptrace.synth.nsys.NsysSqliteWriter;
import dev.steptrace.synth.model.Phase;
import dev.steptrace.synth.model.RankStep;
import dev.steptrace.synth.model.RankTimeline;
import dev.steptrace.synth.model.Workload;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * Writes a synthetic capture: one Kineto trace (or, with {@link SynthFormat#NSYS_SQLITE}, one Nsight
 * Systems SQLite export) per rank, generated in parallel (one thread per core, each rank file streamed
 * with bounded memory, gzip on a thread of its own), then EXPECTED.json. Both formats record the same
 * seeded timeline, so their analyses must agree.
 *
 * <p>With a target size, the number of decode steps comes from a dry run: every rank writes its
 * prefill and three decode steps to a byte counter, which gives the fixed part of a file and the
 * smallest step; later steps are never smaller (ids and timestamps only gain digits), so the
 * computed step count reaches the target on every rank.
 */
public final class Synthesizer {
    /** Where synthetic files go until they are complete; a crash leaves no half-written trace behind. */
    private static final String TMP_PREFIX = ".synth-rank";
    private static final Pattern OWN_TRACE = Pattern.compile(
            "dp0_pp0_tp\\d+_dcp0_ep0_rank\\d+\\.\\d+\\.pt\\.trace\\.json(\\.gz)?|rank\\d+\\.sqlite");
    private static final int DRY_RUN_STEPS = 3;
    /** Simulated time between the last step and the trace export that names the file (vLLM's stop_profile). */
    private static final long EXPORT_DELAY_NS = 1_612_000_000L;

    /** How much to write. */
    public record Plan(int decodeSteps, long estimatedJsonBytes) {
    }

    /** {@code --out} holds traces that a previous synth run did not write: refusing protects real captures. */
    public static final class OccupiedOutputException extends IOException {
        private static final long serialVersionUID = 1L;

        OccupiedOutputException(String message) {
            super(message);
        }
    }

    /** What was written. */
    public record Result(List<Path> traces, Path expected, int decodeSteps, long jsonBytes) {
    }

    private record RankOutput(ExpectedWriter.FileInfo file, RankTotals totals) {
    }

    private final SynthConfig config;
    private final Workload workload;
    private final int threads;
    private final AtomicLong bytesWritten = new AtomicLong();

    public Synthesizer(SynthConfig config) {
        this(config, Runtime.getRuntime().availableProcessors());
    }

    public Synthesizer(SynthConfig config, int threads) {
        this.config = config;
        this.workload = new Workload(config.workload());
        this.threads = Math.max(1, Math.min(threads, config.workload().ranks()));
    }

    /** Uncompressed JSON bytes written so far, over all ranks (for a progress display). */
    public AtomicLong bytesWritten() {
        return bytesWritten;
    }

    /** Decides the number of decode steps: {@code --steps}, or more when the target size needs them. */
    public Plan plan() throws IOException, InterruptedException {
        if (config.targetSize() == 0) {
            return new Plan(config.steps(), 0);
        }
        List<long[]> sizes = forEachRank(this::measure);
        int steps = config.steps();
        long estimate = 0;
        for (long[] s : sizes) {
            long fixed = s[0];
            long perStep = s[1];
            long needed = (config.targetSize() - fixed + perStep - 1) / perStep;
            steps = (int) Math.max(steps, Math.min(Integer.MAX_VALUE, needed));
        }
        for (long[] s : sizes) {
            estimate += s[0] + s[1] * steps;
        }
        return new Plan(steps, estimate);
    }

    /** Writes every rank's trace and EXPECTED.json into {@code --out}. */
    public Result write(Plan plan) throws IOException, InterruptedException {
        Path dir = config.out();
        prepareOutput(dir);
        List<RankOutput> outputs = forEachRank(rank -> writeRank(rank, plan.decodeSteps()));
        List<Path> traces = new ArrayList<>();
        List<ExpectedWriter.FileInfo> files = new ArrayList<>();
        List<RankTotals> totals = new ArrayList<>();
        long bytes = 0;
        for (RankOutput o : outputs) {
            traces.add(o.file().file());
            files.add(o.file());
            totals.add(o.totals());
            bytes += o.file().jsonBytes();
        }
        Path expected = ExpectedWriter.write(dir, workload, totals, files, config.format());
        return new Result(traces, expected, plan.decodeSteps(), bytes);
    }

    private RankOutput writeRank(int rank, int decodeSteps) throws IOException {
        if (config.format() == SynthFormat.NSYS_SQLITE) {
            return writeNsysRank(rank, decodeSteps);
        }
        Path tmp = config.out().resolve(TMP_PREFIX + rank + ".tmp");
        RankTimeline timeline = workload.timeline(rank);
        RankTotals totals = new RankTotals(rank);
        long bytes;
        try {
            try (KinetoTraceWriter writer = KinetoTraceWriter.open(tmp, config.gzip(), workload, rank)) {
                writer.header();
                long reported = 0;
                for (int i = 0; i < config.prefillSteps() + decodeSteps; i++) {
                    RankStep step = timeline.next(i < config.prefillSteps() ? Phase.PREFILL : Phase.DECODE);
                    writer.step(step);
                    totals.add(step);
                    bytesWritten.addAndGet(writer.written() - reported);
                    reported = writer.written();
                }
                writer.finish(timeline.profilerStart(), timeline.lastHostEnd());
                bytes = writer.written();
                bytesWritten.addAndGet(bytes - reported);
            }
            long exportedAt = Workload.BASE_TIME_NS + timeline.lastHostEnd() + EXPORT_DELAY_NS + rank * 23_417_129L;
            Path file = config.out().resolve(KinetoTraceWriter.fileName(rank, exportedAt, config.gzip()));
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            return new RankOutput(new ExpectedWriter.FileInfo(rank, file, bytes), totals);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** One rank as an Nsight Systems SQLite export, {@code rank<N>.sqlite}. */
    private RankOutput writeNsysRank(int rank, int decodeSteps) throws IOException {
        Path tmp = config.out().resolve(TMP_PREFIX + rank + ".tmp");
        RankTimeline timeline = workload.timeline(rank);
        RankTotals totals = new RankTotals(rank);
        try {
            try (NsysSqliteWriter writer = NsysSqliteWriter.open(tmp, workload, rank, timeline.profilerStart())) {
                writer.header(Workload.GPU_NAME, Workload.GPUS_PER_NODE, Workload.GPU_MEMORY_BYTES, Workload.GPU_SMS);
                for (int i = 0; i < config.prefillSteps() + decodeSteps; i++) {
                    RankStep step = timeline.next(i < config.prefillSteps() ? Phase.PREFILL : Phase.DECODE);
                    writer.step(step);
                    totals.add(step);
                }
                writer.finish();
            }
            Path file = config.out().resolve(NsysSqliteWriter.fileName(rank));
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            long bytes = Files.size(file);
            bytesWritten.addAndGet(bytes);
            return new RankOutput(new ExpectedWriter.FileInfo(rank, file, bytes), totals);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** {fixed bytes, smallest decode step in bytes} of one rank's file, from a dry run. */
    private long[] measure(int rank) throws IOException {
        RankTimeline timeline = workload.timeline(rank);
        try (KinetoTraceWriter writer = KinetoTraceWriter.counting(workload, rank)) {
            writer.header();
            for (int i = 0; i < config.prefillSteps(); i++) {
                writer.step(timeline.next(Phase.PREFILL));
            }
            long before = writer.written();
            long smallest = Long.MAX_VALUE;
            for (int i = 0; i < DRY_RUN_STEPS; i++) {
                long start = writer.written();
                writer.step(timeline.next(Phase.DECODE));
                smallest = Math.min(smallest, writer.written() - start);
            }
            long decode = writer.written() - before;
            writer.finish(timeline.profilerStart(), timeline.lastHostEnd());
            return new long[] {writer.written() - decode, smallest};
        }
    }

    /**
     * Makes {@code dir} ready: created if missing; a previous synth run there (marked by its
     * EXPECTED.json) is removed; traces from anywhere else are never touched, and make this fail.
     */
    private static void prepareOutput(Path dir) throws IOException {
        Files.createDirectories(dir);
        boolean ours = Files.exists(dir.resolve(ExpectedWriter.FILE_NAME));
        List<Path> previous = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                String name = p.getFileName().toString();
                if (name.contains(".pt.trace.json") || name.endsWith(".json.gz") || name.endsWith(".sqlite")) {
                    if (!ours || !OWN_TRACE.matcher(name).matches()) {
                        throw new OccupiedOutputException("--out " + dir + " already holds traces that synth did not write ("
                                + name + "); choose an empty directory");
                    }
                    previous.add(p);
                }
            }
        }
        for (Path p : previous) {
            Files.delete(p);
        }
        Files.deleteIfExists(dir.resolve(ExpectedWriter.FILE_NAME));
    }

    private interface RankTask<T> {
        T run(int rank) throws IOException;
    }

    /** Runs a task per rank on the thread pool; results in rank order; the first failure stops the rest. */
    private <T> List<T> forEachRank(RankTask<T> task) throws IOException, InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "synth-rank");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int rank = 0; rank < config.workload().ranks(); rank++) {
                int r = rank;
                futures.add(pool.submit(() -> {
                    try {
                        return task.run(r);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                try {
                    results.add(f.get());
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause() instanceof UncheckedIOException u ? u.getCause() : e.getCause();
                    if (cause instanceof IOException io) {
                        throw io;
                    }
                    if (cause instanceof RuntimeException re) {
                        throw re;
                    }
                    throw new IOException(cause);
                }
            }
            return results;
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(1, TimeUnit.MINUTES);
        }
    }
}
