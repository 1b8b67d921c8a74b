package dev.steptrace.synth;

import dev.steptrace.common.Stats;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.steptrace.classify.Category;
import dev.steptrace.synth.model.KernelSpec;
import dev.steptrace.synth.model.Phase;
import dev.steptrace.synth.model.StepTemplate;
import dev.steptrace.synth.model.Workload;
import dev.steptrace.synth.model.WorkloadConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes EXPECTED.json, the ground truth beside a synthetic capture, so that an analysis of the
 * capture can be checked number by number. Every value is computed from the integer-nanosecond
 * durations actually written ({@link RankTotals}), with the reports' averaging (docs/reports.md): per rank, the mean over
 * the phase's steps; then the mean over ranks.
 *
 * <pre>
 * {"schema": "steptrace.synth-expected/1", "preset": "moe-tp8-graph", "seed": 1,
 *  "ranks": 8, "world_size": 8, "batch": 1, "scales": {"attention": 1.2}, "slow_ranks": {"3": 1.2},
 *  "comm_stream": false, "host_overhead": 1.0, "format": "kineto",
 *  "files": [{"rank": 0, "file": "dp0_pp0_tp0_dcp0_ep0_rank0.NS.pt.trace.json.gz", "json_bytes": 123,
 *             "clock_offset_ns": 1234}],
 *  "phases": {
 *    "decode": {"steps": 40, "annotation": "execute_context_0(0)_generation_1(1)", "cuda_graph": true,
 *      "kernel_ms_per_step": 21.70,           // kernels + memcpy, summed per step
 *      "step_ms_per_step": 24.90,             // the step time: its annotation's start to the next step's
 *      "categories": [                         // category ids and order, categories with calls only
 *        {"id": "allreduce", "ms_per_step": 11.17, "calls_per_step": 127,
 *         "subcategories": {"custom": {"ms_per_step": ..., "calls_per_step": 122}, "nccl": {...}}}, ...],
 *      "collectives": [{"type": "allreduce", "calls_per_step": 127,
 *         "wait_ms_per_step": ..., "transfer_ms_per_step": ...}],   // wait/transfer split of docs/reports.md
 *      "stragglers": [{"rank": 3, "late_instances": 1400, "late_share_pct": 91.9,
 *         "caused_wait_ms_per_step": ...}],   // ranks that arrived last at collectives (2 ranks or more)
 *      "overlap": {"comm_ms_per_step": ..., "hidden_ms_per_step": ..., "hidden_pct": ...},
 *      "host": {"span_ms_per_step": ..., "idle_ms_per_step": ..., "launch_wait_ms_per_step": ...,
 *               "launch_wait_pct_of_span": ...},
 *      "per_rank": [{"rank": 0, "kernel_ms_per_step": ...,
 *         "categories": {"allreduce": {"ms_per_step": ..., "calls_per_step": 127}, ...}}]},
 *    "prefill": {...}},                        // present when --prefill-steps &gt; 0
 *  "kernels": [{"name": "...", "category": "allreduce", "subcategory": "custom",
 *     "calls_per_step": 122, "ms_per_step": ...,                   // decode
 *     "prefill_calls_per_step": 0, "prefill_ms_per_step": 0.0}]}
 * </pre>
 * Milliseconds are doubles; calls per step are integers (every step of a phase runs the same kernels).
 * {@code transfer} is the fastest rank's duration of each instance (its wait is 0), {@code wait} the
 * rest, as docs/reports.md defines them.
 */
public final class ExpectedWriter {
    public static final String FILE_NAME = "EXPECTED.json";

    /** A written trace file. */
    public record FileInfo(int rank, Path file, long jsonBytes) {
    }

    private ExpectedWriter() {
    }

    public static Path write(Path dir, Workload workload, List<RankTotals> ranks, List<FileInfo> files) throws IOException {
        return write(dir, workload, ranks, files, SynthFormat.KINETO);
    }

    /**
     * @param format for {@code nsys-sqlite}, a file's size is its {@code bytes} (there is no JSON)
     */
    public static Path write(Path dir, Workload workload, List<RankTotals> ranks, List<FileInfo> files,
                             SynthFormat format) throws IOException {
        WorkloadConfig config = workload.config();
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        root.put("schema", "steptrace.synth-expected/1");
        root.put("preset", config.preset().id());
        root.put("seed", config.seed());
        root.put("ranks", config.ranks());
        root.put("world_size", config.ranks());
        root.put("batch", config.batch());
        ObjectNode scales = root.putObject("scales");
        config.scales().forEach((c, f) -> scales.put(c.id(), f));
        ObjectNode slow = root.putObject("slow_ranks");
        config.slowRanks().forEach((r, f) -> slow.put(Integer.toString(r), f));
        root.put("comm_stream", config.commStream());
        root.put("fixed_transfers", config.fixedTransfers());
        root.put("host_overhead", config.hostOverhead());
        root.put("format", format.id());
        ArrayNode fileNodes = root.putArray("files");
        for (FileInfo f : files) {
            ObjectNode o = fileNodes.addObject();
            o.put("rank", f.rank());
            o.put("file", f.file().getFileName().toString());
            o.put(format == SynthFormat.KINETO ? "json_bytes" : "bytes", f.jsonBytes());
            o.put("clock_offset_ns", workload.clockOffset(f.rank()));
        }
        ObjectNode phases = root.putObject("phases");
        for (Phase phase : new Phase[] {Phase.DECODE, Phase.PREFILL}) {
            if (ranks.get(0).phase(phase).steps() > 0) {
                phases.set(phase.id(), phase(mapper, workload.template(phase), ranks, phase));
            }
        }
        root.set("kernels", kernels(mapper, ranks));
        Path file = dir.resolve(FILE_NAME);
        Path tmp = dir.resolve(FILE_NAME + ".tmp");
        Files.writeString(tmp, mapper.writeValueAsString(root) + "\n");
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        return file;
    }

    private static ObjectNode phase(ObjectMapper mapper, StepTemplate template, List<RankTotals> ranks, Phase phase) {
        ObjectNode o = mapper.createObjectNode();
        int steps = ranks.get(0).phase(phase).steps();
        o.put("steps", steps);
        o.put("annotation", template.annotation());
        o.put("cuda_graph", template.cudaGraph());

        List<Map<Category, double[]>> perRank = new ArrayList<>();
        List<Map<String, double[]>> perRankSub = new ArrayList<>();
        double[] kernelMs = new double[ranks.size()];
        for (int i = 0; i < ranks.size(); i++) {
            RankTotals.PhaseTotals t = ranks.get(i).phase(phase);
            Map<Category, long[]> cats = new EnumMap<>(Category.class);
            Map<String, long[]> subs = new TreeMap<>();
            long total = 0;
            for (Map.Entry<KernelSpec, long[]> e : t.specs().entrySet()) {
                KernelSpec spec = e.getKey();
                add(cats.computeIfAbsent(spec.category(), c -> new long[2]), e.getValue());
                add(subs.computeIfAbsent(spec.category().id() + "/" + spec.subcategory(), k -> new long[2]), e.getValue());
                total += e.getValue()[0];
            }
            perRank.add(perStep(cats, t.steps));
            perRankSub.add(perStep(subs, t.steps));
            kernelMs[i] = total / 1e6 / t.steps;
        }
        o.put("kernel_ms_per_step", Stats.mean(kernelMs));
        double[] stepMs = new double[ranks.size()];
        for (int i = 0; i < ranks.size(); i++) {
            stepMs[i] = ranks.get(i).windowNs(phase) / 1e6 / ranks.get(i).phase(phase).steps;
        }
        o.put("step_ms_per_step", Stats.mean(stepMs));

        ArrayNode categories = o.putArray("categories");
        for (Category c : Category.values()) {
            double[] msAndCalls = meanOver(perRank, c);
            if (msAndCalls[1] == 0) {
                continue;
            }
            ObjectNode cat = categories.addObject();
            cat.put("id", c.id());
            cat.put("ms_per_step", msAndCalls[0]);
            calls(cat, msAndCalls[1]);
            ObjectNode subs = cat.putObject("subcategories");
            for (String key : perRankSub.get(0).keySet()) {
                if (key.startsWith(c.id() + "/")) {
                    double[] s = meanOver(perRankSub, key);
                    ObjectNode sub = subs.putObject(key.substring(c.id().length() + 1));
                    sub.put("ms_per_step", s[0]);
                    calls(sub, s[1]);
                }
            }
        }

        ArrayNode collectives = o.putArray("collectives");
        for (Category c : Category.values()) {
            long[] first = ranks.get(0).phase(phase).collectiveWaitTransferCalls.get(c);
            if (first == null) {
                continue;
            }
            double[] wait = new double[ranks.size()];
            double[] transfer = new double[ranks.size()];
            for (int i = 0; i < ranks.size(); i++) {
                RankTotals.PhaseTotals t = ranks.get(i).phase(phase);
                long[] w = t.collectiveWaitTransferCalls.get(c);
                wait[i] = w[0] / 1e6 / t.steps;
                transfer[i] = w[1] / 1e6 / t.steps;
            }
            ObjectNode col = collectives.addObject();
            col.put("type", c.id());
            calls(col, (double) first[2] / steps);
            col.put("wait_ms_per_step", Stats.mean(wait));
            col.put("transfer_ms_per_step", Stats.mean(transfer));
        }

        if (ranks.size() > 1) {
            o.set("stragglers", stragglers(mapper, ranks, phase));
        }
        double[] span = new double[ranks.size()];
        double[] idle = new double[ranks.size()];
        double[] launchWait = new double[ranks.size()];
        double[] comm = new double[ranks.size()];
        double[] hidden = new double[ranks.size()];
        for (int i = 0; i < ranks.size(); i++) {
            RankTotals.PhaseTotals t = ranks.get(i).phase(phase);
            span[i] = t.spanNs / 1e6 / t.steps;
            idle[i] = t.idleNs / 1e6 / t.steps;
            launchWait[i] = t.launchWaitNs / 1e6 / t.steps;
            comm[i] = t.commNs / 1e6 / t.steps;
            hidden[i] = t.hiddenNs / 1e6 / t.steps;
        }
        ObjectNode overlap = o.putObject("overlap");
        overlap.put("comm_ms_per_step", Stats.mean(comm));
        overlap.put("hidden_ms_per_step", Stats.mean(hidden));
        overlap.put("hidden_pct", Stats.mean(comm) == 0 ? 0 : 100 * Stats.mean(hidden) / Stats.mean(comm));
        ObjectNode host = o.putObject("host");
        host.put("span_ms_per_step", Stats.mean(span));
        host.put("idle_ms_per_step", Stats.mean(idle));
        host.put("launch_wait_ms_per_step", Stats.mean(launchWait));
        host.put("launch_wait_pct_of_span", 100 * Stats.mean(launchWait) / Stats.mean(span));

        ArrayNode perRankNodes = o.putArray("per_rank");
        for (int i = 0; i < ranks.size(); i++) {
            ObjectNode r = perRankNodes.addObject();
            r.put("rank", ranks.get(i).rank());
            r.put("kernel_ms_per_step", kernelMs[i]);
            ObjectNode cats = r.putObject("categories");
            for (Map.Entry<Category, double[]> e : perRank.get(i).entrySet()) {
                ObjectNode cat = cats.putObject(e.getKey().id());
                cat.put("ms_per_step", e.getValue()[0]);
                calls(cat, e.getValue()[1]);
            }
        }
        return o;
    }

    /**
     * Who arrived last at the phase's collective instances, from the simulation of every rank (each
     * rank's file records the same, so rank 0's sums are used): per rank that arrived last at least
     * once, the instances, their share, and the other ranks' wait there per step and per waiting rank;
     * most caused wait first.
     */
    private static ArrayNode stragglers(ObjectMapper mapper, List<RankTotals> ranks, Phase phase) {
        RankTotals.PhaseTotals t = ranks.get(0).phase(phase);
        long instances = t.lateArrivals.values().stream().mapToLong(v -> v[0]).sum();
        List<Map.Entry<Integer, long[]>> late = new ArrayList<>(t.lateArrivals.entrySet());
        late.sort(Comparator.<Map.Entry<Integer, long[]>>comparingLong(e -> -e.getValue()[1])
                .thenComparing(Map.Entry::getKey));
        ArrayNode out = mapper.createArrayNode();
        for (Map.Entry<Integer, long[]> e : late) {
            ObjectNode r = out.addObject();
            r.put("rank", e.getKey());
            r.put("late_instances", e.getValue()[0]);
            r.put("late_share_pct", 100.0 * e.getValue()[0] / instances);
            r.put("caused_wait_ms_per_step", e.getValue()[1] / 1e6 / (ranks.size() - 1) / t.steps);
        }
        return out;
    }

    /** Every distinct kernel name, by decode time, then prefill time. */
    private static ArrayNode kernels(ObjectMapper mapper, List<RankTotals> ranks) {
        Map<String, KernelSpec> byName = new LinkedHashMap<>();
        Map<Phase, List<Map<String, double[]>>> sums = new EnumMap<>(Phase.class);
        for (Phase phase : Phase.values()) {
            List<Map<String, double[]>> list = new ArrayList<>();
            for (RankTotals rank : ranks) {
                RankTotals.PhaseTotals t = rank.phase(phase);
                Map<String, long[]> m = new LinkedHashMap<>();
                for (Map.Entry<KernelSpec, long[]> e : t.specs().entrySet()) {
                    KernelSpec spec = e.getKey();
                    KernelSpec known = byName.putIfAbsent(spec.name(), spec);
                    if (known != null && (known.category() != spec.category() || !known.subcategory().equals(spec.subcategory()))) {
                        throw new IllegalStateException("kernel named in two categories: " + spec.name());
                    }
                    add(m.computeIfAbsent(spec.name(), k -> new long[2]), e.getValue());
                }
                list.add(perStep(m, t.steps));
            }
            sums.put(phase, list);
        }
        List<String> names = new ArrayList<>(byName.keySet());
        Map<String, double[]> decode = new LinkedHashMap<>();
        Map<String, double[]> prefill = new LinkedHashMap<>();
        for (String name : names) {
            decode.put(name, meanOver(sums.get(Phase.DECODE), name));
            prefill.put(name, meanOver(sums.get(Phase.PREFILL), name));
        }
        names.sort(Comparator.<String>comparingDouble(n -> -decode.get(n)[0])
                .thenComparingDouble(n -> -prefill.get(n)[0]).thenComparing(Comparator.naturalOrder()));
        ArrayNode kernels = mapper.createArrayNode();
        for (String name : names) {
            KernelSpec spec = byName.get(name);
            ObjectNode k = kernels.addObject();
            k.put("name", name);
            k.put("category", spec.category().id());
            k.put("subcategory", spec.subcategory());
            calls(k, decode.get(name)[1]);
            k.put("ms_per_step", decode.get(name)[0]);
            k.put("prefill_calls_per_step", Math.round(prefill.get(name)[1]));
            k.put("prefill_ms_per_step", prefill.get(name)[0]);
        }
        return kernels;
    }

    private static void add(long[] acc, long[] nsAndCalls) {
        acc[0] += nsAndCalls[0];
        acc[1] += nsAndCalls[1];
    }

    /** {nanoseconds, calls} summed over a phase to {ms per step, calls per step}. */
    private static <K> Map<K, double[]> perStep(Map<K, long[]> sums, int steps) {
        Map<K, double[]> out = new LinkedHashMap<>();
        sums.forEach((k, v) -> out.put(k, steps == 0 ? new double[2] : new double[] {v[0] / 1e6 / steps, (double) v[1] / steps}));
        return out;
    }

    /** Mean over ranks of {ms, calls} ({@link Stats#mean(double[])}); a rank without the key counts as 0. */
    private static <K> double[] meanOver(List<? extends Map<K, double[]>> perRank, K key) {
        double[] ms = new double[perRank.size()];
        double[] calls = new double[perRank.size()];
        for (int i = 0; i < ms.length; i++) {
            double[] v = perRank.get(i).get(key);
            if (v != null) {
                ms[i] = v[0];
                calls[i] = v[1];
            }
        }
        return new double[] {Stats.mean(ms), Stats.mean(calls)};
    }


    /** Calls per step are whole numbers by construction; written as integers. */
    private static void calls(ObjectNode o, double calls) {
        long whole = Math.round(calls);
        if (Math.abs(calls - whole) > 1e-9) {
            throw new IllegalStateException("calls per step not whole: " + calls);
        }
        o.put("calls_per_step", whole);
    }
}
