package dev.steptrace.analysis;

import dev.steptrace.common.PathPart;
import dev.steptrace.common.StepPart;
import dev.steptrace.report.BottleneckReport.HostSync;
import dev.steptrace.report.BottleneckReport.IdleCpuOp;
import dev.steptrace.report.BottleneckReport.PartShare;
import dev.steptrace.report.BottleneckReport.PerStep;
import dev.steptrace.report.BottleneckReport.RankStepTime;
import dev.steptrace.report.BottleneckReport.RankValue;
import dev.steptrace.report.BottleneckReport.Stat;
import dev.steptrace.report.BottleneckReport.StepTime;
import dev.steptrace.report.Fmt;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The report's step time (docs/reports.md, "Step time"), read from the kept analysis (queries {@code step-times},
 * {@code step-time-parts}, {@code critical-path}, {@code host-syncs}, {@code idle-cpu-ops}): per rank the mean over
 * its steps of the step time, of each part and of each part of its critical path, across ranks their means, the rank that sets the pace, and the finding.
 */
final class StepTimeSummary {
    /** CPU ops under GPU idle time listed per phase. */
    private static final int IDLE_CPU_OPS = 10;

    /** One rank's step time in one phase. */
    private record RankTimes(int steps, PerStep ms, Map<String, Double> partMs, Map<String, Double> pathMs,
                             double launches, double graphLaunches, double hiddenMs) {
        double waitMs() {
            return partMs.getOrDefault(StepPart.COMM_WAIT.id(), 0.0);
        }
    }

    private final Map<String, Map<Integer, RankTimes>> perPhase;
    private final Map<String, List<HostSync>> syncs;
    private final Map<String, List<IdleCpuOp>> idleOps;

    private StepTimeSummary(Map<String, Map<Integer, RankTimes>> perPhase, Map<String, List<HostSync>> syncs,
                            Map<String, List<IdleCpuOp>> idleOps) {
        this.perPhase = perPhase;
        this.syncs = syncs;
        this.idleOps = idleOps;
    }

    static StepTimeSummary of(StoredAnalysis a) throws SQLException {
        Map<String, Map<Integer, RankTimes>> perPhase = new HashMap<>();
        a.query("step-times", Map.of(), rs -> perPhase.computeIfAbsent(rs.getString(1), k -> new TreeMap<>())
                .put(rs.getInt(2), new RankTimes(rs.getInt(3),
                        new PerStep(rs.getDouble(4) / 1e6, rs.getDouble(5) / 1e6, rs.getDouble(6) / 1e6),
                        new HashMap<>(), new HashMap<>(), rs.getDouble(7), rs.getDouble(8), rs.getDouble(9) / 1e6)));
        a.query("step-time-parts", Map.of(), rs -> {
            RankTimes r = perPhase.get(rs.getString(1)).get(rs.getInt(2));
            r.partMs().put(rs.getString(3), rs.getDouble(4) / 1e6 / r.steps());
        });
        a.query("critical-path", Map.of(), rs -> {
            RankTimes r = perPhase.get(rs.getString(1)).get(rs.getInt(2));
            r.pathMs().put(rs.getString(3), rs.getDouble(4) / 1e6 / r.steps());
        });
        // Per phase and key: each rank's sums over its steps, divided by its steps here and averaged over the
        // phase's ranks in rank order (so the figures do not depend on the order the store adds them in).
        Map<String, Map<List<String>, double[]>> syncSums = new HashMap<>();
        a.query("host-syncs", Map.of(), rs -> {
            int steps = perPhase.get(rs.getString(1)).get(rs.getInt(2)).steps();
            double[] v = syncSums.computeIfAbsent(rs.getString(1), k -> new LinkedHashMap<>())
                    .computeIfAbsent(Arrays.asList(rs.getString(3), rs.getString(4)), k -> new double[3]);
            v[0] += rs.getDouble(5) / steps;
            v[1] += rs.getDouble(6) / 1e6 / steps;
            v[2] += rs.getDouble(7) / 1e6 / steps;
        });
        Map<String, List<HostSync>> syncs = new HashMap<>();
        syncSums.forEach((phase, byKey) -> {
            int n = perPhase.get(phase).size();
            List<HostSync> list = new ArrayList<>();
            byKey.forEach((k, v) -> list.add(new HostSync(k.get(0), k.get(1), v[0] / n, v[1] / n, v[2] / n)));
            list.sort(Comparator.comparingDouble(HostSync::idleMsPerStep).reversed()
                    .thenComparing(Comparator.comparingDouble(HostSync::callsPerStep).reversed()));
            syncs.put(phase, list);
        });
        Map<String, Map<List<String>, double[]>> opSums = new HashMap<>();
        a.query("idle-cpu-ops", Map.of(), rs -> {
            int steps = perPhase.get(rs.getString(1)).get(rs.getInt(2)).steps();
            double[] v = opSums.computeIfAbsent(rs.getString(1), k -> new LinkedHashMap<>())
                    .computeIfAbsent(List.of(rs.getString(3), rs.getString(4)), k -> new double[2]);
            v[0] += rs.getDouble(6) / 1e6 / steps;
            v[1] += rs.getDouble(5) / steps;
        });
        Map<String, List<IdleCpuOp>> idleOps = new HashMap<>();
        opSums.forEach((phase, byKey) -> {
            int n = perPhase.get(phase).size();
            List<IdleCpuOp> list = new ArrayList<>();
            byKey.forEach((k, v) -> list.add(new IdleCpuOp(k.get(0), k.get(1), v[0] / n, v[1] / n)));
            list.sort(Comparator.comparingDouble(IdleCpuOp::idleMsPerStep).reversed()
                    .thenComparing(IdleCpuOp::name).thenComparing(IdleCpuOp::kind));
            idleOps.put(phase, List.copyOf(list.subList(0, Math.min(IDLE_CPU_OPS, list.size()))));
        });
        return new StepTimeSummary(perPhase, syncs, idleOps);
    }

    /** The phase's step time across ranks; null when no rank has steps of it. */
    StepTime phase(String phase) {
        Map<Integer, RankTimes> ranks = perPhase.get(phase);
        if (ranks == null || ranks.isEmpty()) {
            return null;
        }
        int n = ranks.size();
        Map<String, Double> mean = new HashMap<>();
        ranks.values().forEach(r -> r.partMs().forEach((part, ms) -> mean.merge(part, ms / n, Double::sum)));
        Map<String, Double> path = new HashMap<>();
        ranks.values().forEach(r -> r.pathMs().forEach((part, ms) -> path.merge(part, ms / n, Double::sum)));
        double msPerStep = ranks.values().stream().mapToDouble(r -> r.ms().mean()).sum() / n;
        Map.Entry<Integer, RankTimes> pace = ranks.entrySet().stream()
                .max(Comparator.comparingDouble((Map.Entry<Integer, RankTimes> e) -> e.getValue().ms().mean()
                        - e.getValue().waitMs()).thenComparing(e -> -e.getKey()))
                .orElseThrow();
        List<PartShare> parts = parts(mean, msPerStep, StepPart::labelOf);
        List<PartShare> criticalPath = parts(path, msPerStep, PathPart::labelOf);
        List<PartShare> paceParts = parts(pace.getValue().partMs(), pace.getValue().ms().mean(), StepPart::labelOf);
        List<HostSync> phaseSyncs = syncs.getOrDefault(phase, List.of());
        double launches = ranks.values().stream().mapToDouble(RankTimes::launches).sum() / n;
        return new StepTime(msPerStep, stat(ranks), pace.getKey(), paceReason(ranks, pace), parts, paceParts,
                criticalPath,
                ranks.values().stream().mapToDouble(RankTimes::hiddenMs).sum() / n, launches,
                ranks.values().stream().mapToDouble(RankTimes::graphLaunches).sum() / n, phaseSyncs,
                idleOps.getOrDefault(phase, List.of()), StepFinding.of(parts, criticalPath, pace.getKey(), n, launches, phaseSyncs,
                idleOps.getOrDefault(phase, List.of())));
    }

    /** One rank's step time in a phase; null when it has no steps of it. */
    RankStepTime rank(String phase, int rank) {
        RankTimes r = perPhase.getOrDefault(phase, Map.of()).get(rank);
        return r == null ? null : new RankStepTime(r.ms(), parts(r.partMs(), r.ms().mean(), StepPart::labelOf));
    }

    /** Parts with time, largest first, each with its label and its share of {@code total}. */
    private static List<PartShare> parts(Map<String, Double> ms, double total, Function<String, String> label) {
        List<PartShare> out = new ArrayList<>();
        ms.forEach((part, v) -> {
            if (v > 0) {
                out.add(new PartShare(part, label.apply(part), v, total > 0 ? 100 * v / total : 0));
            }
        });
        out.sort(Comparator.comparingDouble(PartShare::msPerStep).reversed().thenComparing(PartShare::name));
        return out;
    }

    private static Stat stat(Map<Integer, RankTimes> ranks) {
        int n = ranks.size();
        RankValue min = null;
        RankValue max = null;
        double mean = 0;
        double median = 0;
        double p90 = 0;
        for (Map.Entry<Integer, RankTimes> e : ranks.entrySet()) {
            PerStep p = e.getValue().ms();
            mean += p.mean() / n;
            median += p.median() / n;
            p90 += p.p90() / n;
            if (min == null || p.mean() < min.value()) {
                min = new RankValue(e.getKey(), p.mean());
            }
            if (max == null || p.mean() > max.value()) {
                max = new RankValue(e.getKey(), p.mean());
            }
        }
        return new Stat(mean, median, p90, min, max);
    }

    private static String paceReason(Map<Integer, RankTimes> ranks, Map.Entry<Integer, RankTimes> pace) {
        if (ranks.size() == 1) {
            return "the only rank";
        }
        double least = pace.getValue().waitMs();
        double most = ranks.values().stream().mapToDouble(RankTimes::waitMs).max().orElse(0);
        return "it waits least for the other ranks at collectives (" + Fmt.ms(least) + " ms per step; the most is "
                + Fmt.ms(most) + " ms)";
    }
}
