package dev.steptrace.roofline;

import dev.steptrace.report.BottleneckReport.BelowBound;
import dev.steptrace.report.BottleneckReport.DevicePeakRates;
import dev.steptrace.report.BottleneckReport.ModelFloor;
import dev.steptrace.report.BottleneckReport.PhaseRoofline;
import dev.steptrace.report.BottleneckReport.Roofline;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.store.KeptAnalysis;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The report's roofline figures, from the kept analysis's {@code kernel_work} with the peaks of each
 * file's GPU applied, and the model file's floors: per phase, each
 * category's and each kernel's work per step, achieved rates, the bound that applies and how far below
 * it they ran (docs/roofline.md). Per-step values are each rank's sum over its steps divided by its
 * steps, averaged over the ranks with steps in the phase, as the report's times are; rates are the
 * work over the time of the kernels whose work is known.
 */
public final class RooflineSummary {
    /** The checks of the roofline's inputs, run where those inputs are read (docs/warnings.md). */
    public static final List<Rule> RULES = List.of(FilePeaks.UNKNOWN_DEVICE_PEAKS, ModelCheck.RULE);
    /** The report lists this many kernels furthest below their bound per phase. */
    public static final int BELOW_BOUND = 10;
    /** Floors describe a decode step: the model file's workload. */
    public static final String FLOOR_PHASE = "decode";

    /** Sums over ranks of one group's kernels: per-step sums (each rank's total over its steps) and totals. */
    private static final class Agg {
        double flopsPerStep;
        double bytesPerStep;
        double nsBoundPerStep;
        double boundNsPerStep;
        double nsWorkPerStep;
        double flops;
        double nsFlops;
        double bytes;
        double nsBytes;
        double flopsBoth;
        double bytesBoth;
        double computeNs;
        double memoryNs;
        double linkNs;
        double boundNs;
        double nsBound;
        double nsWork;
        boolean hasFlops;
        boolean hasBytes;
        String category;
    }

    private final Map<String, Integer> ranks = new HashMap<>();
    private final Map<String, Map<String, Agg>> categories = new HashMap<>();
    private final Map<String, Map<String, Agg>> kernels = new HashMap<>();
    private final Map<String, Double> categoryNs = new HashMap<>();
    private final Map<String, ModelFloor> floors;
    private final DevicePeaks.Device device;
    private final String deviceName;
    private final ModelSpec model;

    private final List<Warning> warnings;

    private RooflineSummary(Map<String, ModelFloor> floors, DevicePeaks.Device device, String deviceName,
                            ModelSpec model, List<Warning> warnings) {
        this.floors = floors;
        this.device = device;
        this.deviceName = deviceName;
        this.model = model;
        this.warnings = warnings;
    }

    /**
     * The figures of a kept analysis under these device peaks and model file: the work is the analysis's
     * ({@code kernel_work}, {@code step_metrics}, {@code step_categories}), the peaks, bounds, floors and
     * the model file's checks are the report's.
     */
    public static RooflineSummary of(KeptAnalysis a, List<Integer> files, RooflineInputs inputs) throws SQLException {
        FilePeaks peaks = FilePeaks.of(a, files, inputs.peaks());
        DevicePeaks.Device device = peaks.firstDevice();
        Map<String, ModelFloor> floors = inputs.model() == null ? Map.of() : DecodeFloors.of(inputs.model(), device);
        List<Warning> warnings = new ArrayList<>(peaks.warnings(a));
        if (inputs.model() != null) {
            warnings.addAll(ModelCheck.check(a, inputs.model()));
        }
        RooflineSummary r = new RooflineSummary(floors, device, peaks.firstName(), inputs.model(), List.copyOf(warnings));
        r.load(a, peaks);
        return r;
    }

    /** Warnings of the report's roofline inputs: GPUs without peaks, a model file the capture's shapes contradict. */
    public List<Warning> warnings() {
        return warnings;
    }

    private void load(KeptAnalysis a, FilePeaks peaks) throws SQLException {
        Map<String, Integer> stepsOf = new HashMap<>();
        a.query("rank-phase-steps", Map.of(), rs -> {
            stepsOf.put(rs.getString(1) + "/" + rs.getInt(2), rs.getInt(3));
            ranks.merge(rs.getString(1), 1, Integer::sum);
        });
        a.query("rank-categories", Map.of(), rs -> categoryNs.merge(rs.getString(1) + "/" + rs.getString(3),
                rs.getDouble(5), Double::sum));
        // The least times the file's peaks allow each kernel, and the largest of them: its bound.
        a.query("roofline-work", peaks.parameters(), rs -> {
            String phase = rs.getString(1);
            int steps = stepsOf.getOrDefault(phase + "/" + rs.getInt(2), 0);
            if (steps > 0) {
                add(categories, phase, rs.getString(5), rs, steps);
                add(kernels, phase, rs.getString(4), rs, steps);
            }
        });
    }

    /** Adds a row of query {@code roofline-work} (one rank's calls over its {@code steps}) to the group {@code key}. */
    private static void add(Map<String, Map<String, Agg>> into, String phase, String key, ResultSet rs, int steps)
            throws SQLException {
        Agg a = into.computeIfAbsent(phase, p -> new HashMap<>()).computeIfAbsent(key, k -> new Agg());
        a.category = rs.getString(5);
        a.hasFlops |= rs.getObject(6) != null;
        a.hasBytes |= rs.getObject(8) != null;
        double flops = sum(rs, 6);
        double bytes = sum(rs, 8);
        a.flops += flops;
        a.flopsPerStep += flops / steps;
        a.nsFlops += sum(rs, 7);
        a.bytes += bytes;
        a.bytesPerStep += bytes / steps;
        a.nsBytes += sum(rs, 9);
        a.flopsBoth += sum(rs, 10);
        a.bytesBoth += sum(rs, 11);
        a.computeNs += sum(rs, 12);
        a.memoryNs += sum(rs, 13);
        a.linkNs += sum(rs, 14);
        a.boundNs += sum(rs, 15);
        a.boundNsPerStep += sum(rs, 15) / steps;
        a.nsBound += sum(rs, 16);
        a.nsBoundPerStep += sum(rs, 16) / steps;
        a.nsWork += sum(rs, 17);
        a.nsWorkPerStep += sum(rs, 17) / steps;
    }

    /** A sum the query gives, 0 for none (NULL: no call of the group had the figure). */
    private static double sum(ResultSet rs, int column) throws SQLException {
        Object v = rs.getObject(column);
        return v == null ? 0 : ((Number) v).doubleValue();
    }

    /** A category's figures; {@code msPerStep} is its measured kernel time per step (the report's). */
    public Roofline category(String phase, String category, double msPerStep) {
        Agg a = categories.getOrDefault(phase, Map.of()).get(category);
        ModelFloor floor = FLOOR_PHASE.equals(phase) ? floors.get(category) : null;
        Double floorMs = floor == null ? null : floor.floorMs();
        Double overFloor = floorMs == null || floorMs <= 0 ? null : msPerStep / floorMs;
        if (a == null && floor != null) {
            // No shapes (a CUDA-graph step): the model says what the category must do.
            Double flops = floor.flops() > 0 ? floor.flops() : null;
            return new Roofline(flops, floor.bytes(), flops == null ? null : floor.flops() / msPerStep / 1e9,
                    floor.bytes() / msPerStep / 1e6, flops == null ? null : floor.flops() / floor.bytes(),
                    floor.bound(), floorMs == null ? null : 100 * floorMs / msPerStep, floorMs, overFloor, "model", null);
        }
        Double total = categoryNs.get(phase + "/" + category);
        Roofline r = fromTrace(a, phase, total);
        return new Roofline(r.flopsPerStep(), r.bytesPerStep(), r.achievedTflops(), r.achievedGbps(),
                r.arithmeticIntensity(), r.bound(), r.pctOfBound(), floorMs, overFloor, r.workSource(), r.workCoveragePct());
    }

    /** A kernel's figures, from the trace alone. */
    public Roofline kernel(String phase, String name) {
        return fromTrace(kernels.getOrDefault(phase, Map.of()).get(name), phase, null);
    }

    private Roofline fromTrace(Agg a, String phase, Double totalNs) {
        if (a == null) {
            return totalNs == null ? Roofline.NONE
                    : new Roofline(null, null, null, null, null, null, null, null, null, null, 0.0);
        }
        int n = ranks.getOrDefault(phase, 1);
        String bound = null;
        double most = 0;
        for (Object[] b : new Object[][] {{"compute", a.computeNs}, {"memory", a.memoryNs}, {"interconnect", a.linkNs}}) {
            if ((double) b[1] > most) {
                most = (double) b[1];
                bound = (String) b[0];
            }
        }
        return new Roofline(a.hasFlops ? a.flopsPerStep / n : null, a.hasBytes ? a.bytesPerStep / n : null,
                a.nsFlops > 0 ? a.flops / a.nsFlops / 1e3 : null, a.nsBytes > 0 ? a.bytes / a.nsBytes : null,
                a.bytesBoth > 0 ? a.flopsBoth / a.bytesBoth : null, bound,
                a.nsBound > 0 ? 100 * a.boundNs / a.nsBound : null, null, null, "trace",
                totalNs == null || totalNs <= 0 ? null : 100 * a.nsWork / totalNs);
    }

    /** The phase's device, model floors and the kernels furthest below their bound; null when there is nothing to say. */
    public PhaseRoofline phase(String phase) {
        int n = ranks.getOrDefault(phase, 1);
        List<BelowBound> below = new ArrayList<>();
        kernels.getOrDefault(phase, Map.of()).forEach((name, a) -> {
            if (a.nsBound > 0) {
                double ms = a.nsBoundPerStep / n / 1e6;
                double boundMs = a.boundNsPerStep / n / 1e6;
                Roofline r = fromTrace(a, phase, null);
                below.add(new BelowBound(name, a.category, ms, boundMs, ms - boundMs, r.pctOfBound(), r.bound(),
                        r.achievedTflops(), r.achievedGbps(), r.arithmeticIntensity()));
            }
        });
        below.sort(Comparator.comparingDouble(BelowBound::lostMsPerStep).reversed().thenComparing(BelowBound::name));
        List<ModelFloor> phaseFloors = FLOOR_PHASE.equals(phase) ? List.copyOf(floors.values()) : List.of();
        if (below.isEmpty() && phaseFloors.isEmpty() && device == null && deviceName == null) {
            return null;
        }
        return new PhaseRoofline(deviceName, rates(device), model == null ? null : model.name(),
                model == null ? null : model.workload().batch(), model == null ? null : model.workload().context(),
                phaseFloors, List.copyOf(below.subList(0, Math.min(BELOW_BOUND, below.size()))));
    }

    private static DevicePeakRates rates(DevicePeaks.Device d) {
        return d == null ? null : new DevicePeakRates(d.id(), d.label(), d.bf16Tflops(), d.fp16Tflops(), d.fp8Tflops(),
                d.int8Tops(), d.hbmGbps(), d.interconnect(), d.interconnectGbps(), d.source().title(), d.source().url(),
                d.note());
    }
}
