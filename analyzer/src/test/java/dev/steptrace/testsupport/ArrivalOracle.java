package dev.steptrace.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

/**
 * Who arrived last at each NCCL collective, read from the raw Kineto traces of a ProfilerStep
 * capture as JSON trees, independently of the store: per rank, the NCCL kernels launched inside each
 * {@code ProfilerStep#N} range (the launch's correlation id), by their type (from the kernel name) in
 * time order; the k-th of a type in the i-th step of each rank is one instance. The shortest of an
 * instance arrived last (every rank leaves together), and the others' durations beyond it are their
 * wait for it. A step's phase is the {@code prefill} or {@code decode} annotation inside it.
 */
public final class ArrivalOracle {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ArrivalOracle() {}

    /** Per phase and rank: instances at which it arrived last, and the others' wait there (ns summed). */
    public record Late(long instances, double waitNs) {}

    /** One phase's arrivals: per rank what it caused; the phase's steps (per rank) and rank count. */
    public record PhaseArrivals(Map<Integer, Late> byRank, int steps, int ranks, long instances) {
        /** The other ranks' wait per step and per waiting rank at the instances where {@code rank} was last, ms. */
        public double causedWaitMsPerStep(int rank) {
            Late l = byRank.get(rank);
            return l == null ? 0 : l.waitNs() / (ranks - 1) / steps / 1e6;
        }
    }

    /** Arrivals per phase over the capture's rank files (one gzipped Kineto trace per rank, rank from distributedInfo). */
    public static Map<String, PhaseArrivals> arrivals(List<Path> rankFiles) throws Exception {
        Map<Integer, List<Step>> ranks = new TreeMap<>();
        for (Path f : rankFiles) {
            JsonNode root;
            try (InputStream in = new GZIPInputStream(Files.newInputStream(f))) {
                root = JSON.readTree(in);
            }
            ranks.put(root.get("distributedInfo").get("rank").asInt(), steps(root));
        }
        int n = ranks.size();
        Map<String, Map<Integer, double[]>> late = new HashMap<>();
        Map<String, Integer> stepsPerPhase = new HashMap<>();
        Map<String, Long> instances = new HashMap<>();
        List<List<Step>> all = new ArrayList<>(ranks.values());
        List<Integer> rankIds = new ArrayList<>(ranks.keySet());
        for (int i = 0; i < all.get(0).size(); i++) {
            String phase = all.get(0).get(i).phase;
            stepsPerPhase.merge(phase, 1, Integer::sum);
            for (String type : all.get(0).get(i).byType.keySet()) {
                int count = all.get(0).get(i).byType.get(type).size();
                for (int k = 0; k < count; k++) {
                    int lastRank = -1;
                    long shortest = Long.MAX_VALUE;
                    long[] durs = new long[n];
                    for (int r = 0; r < n; r++) {
                        durs[r] = all.get(r).get(i).byType.get(type).get(k);
                        if (durs[r] < shortest) {
                            shortest = durs[r];
                            lastRank = rankIds.get(r);
                        }
                    }
                    double wait = 0;
                    for (long d : durs) {
                        wait += d - shortest;
                    }
                    double[] acc = late.computeIfAbsent(phase, p -> new HashMap<>()).computeIfAbsent(lastRank, x -> new double[2]);
                    acc[0]++;
                    acc[1] += wait;
                    instances.merge(phase, 1L, Long::sum);
                }
            }
        }
        Map<String, PhaseArrivals> out = new HashMap<>();
        late.forEach((phase, m) -> {
            Map<Integer, Late> byRank = new TreeMap<>();
            m.forEach((r, v) -> byRank.put(r, new Late((long) v[0], v[1])));
            out.put(phase, new PhaseArrivals(byRank, stepsPerPhase.get(phase), n, instances.get(phase)));
        });
        return out;
    }

    private static final class Step {
        final long start;
        final long end;
        String phase = "unknown";
        final Map<String, List<Long>> byType = new TreeMap<>();

        Step(long start, long end) {
            this.start = start;
            this.end = end;
        }
    }

    /** The rank's ProfilerStep ranges in time order, each with its phase and its NCCL kernel durations by type. */
    private static List<Step> steps(JsonNode root) {
        List<Step> steps = new ArrayList<>();
        Map<Long, Long> launchTs = new HashMap<>();
        List<long[]> phaseMarks = new ArrayList<>();
        List<String> phaseNames = new ArrayList<>();
        for (JsonNode e : root.get("traceEvents")) {
            String cat = e.path("cat").asText();
            String name = e.path("name").asText();
            if (cat.equals("user_annotation") && name.startsWith("ProfilerStep#")) {
                steps.add(new Step(ns(e.get("ts")), ns(e.get("ts")) + ns(e.get("dur"))));
            } else if (cat.equals("user_annotation") && (name.equals("prefill") || name.equals("decode"))) {
                phaseMarks.add(new long[] {ns(e.get("ts"))});
                phaseNames.add(name);
            } else if ((cat.equals("cuda_runtime") || cat.equals("cuda_driver")) && e.path("args").has("correlation")) {
                launchTs.put(e.get("args").get("correlation").asLong(), ns(e.get("ts")));
            }
        }
        steps.sort((a, b) -> Long.compare(a.start, b.start));
        for (int i = 0; i < phaseMarks.size(); i++) {
            for (Step s : steps) {
                if (phaseMarks.get(i)[0] >= s.start && phaseMarks.get(i)[0] < s.end) {
                    s.phase = phaseNames.get(i);
                }
            }
        }
        List<long[]> kernels = new ArrayList<>(); // ts, dur, step, type index
        List<String> types = new ArrayList<>();
        for (JsonNode e : root.get("traceEvents")) {
            String name = e.path("name").asText();
            if (!e.path("cat").asText().equals("kernel") || !name.startsWith("ncclDevKernel_")) {
                continue;
            }
            String type = name.startsWith("ncclDevKernel_AllReduce") ? "allreduce"
                    : name.startsWith("ncclDevKernel_AllGather") ? "all_gather" : name.substring(14, name.indexOf('_', 14));
            Long launch = launchTs.get(e.path("args").path("correlation").asLong(-1));
            for (int s = 0; launch != null && s < steps.size(); s++) {
                if (launch >= steps.get(s).start && launch < steps.get(s).end) {
                    kernels.add(new long[] {ns(e.get("ts")), ns(e.get("dur")), s, types.size()});
                    types.add(type);
                }
            }
        }
        kernels.sort((a, b) -> Long.compare(a[0], b[0]));
        for (long[] k : kernels) {
            steps.get((int) k[2]).byType.computeIfAbsent(types.get((int) k[3]), t -> new ArrayList<>()).add(k[1]);
        }
        return steps;
    }

    /** Microseconds with up to three decimals, as Kineto writes them, to integer nanoseconds. */
    private static long ns(JsonNode us) {
        return new BigDecimal(us.asText()).movePointRight(3).longValueExact();
    }
}
