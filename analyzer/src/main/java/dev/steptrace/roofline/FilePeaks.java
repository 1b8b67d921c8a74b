package dev.steptrace.roofline;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Thresholds;
import dev.steptrace.store.KeptAnalysis;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Each file's GPU and its peak rates, for a kept analysis: the GPU model the analysis found for the
 * file ({@code rank_devices}; the first name, should a file use several) matched against the device
 * peaks. The peaks are an input of the report, not of the analysis: the same kept analysis gives its
 * bounds under other peaks ({@code --device-peaks}, docs/roofline.md).
 */
final class FilePeaks {
    /** A GPU no device peaks entry matches. */
    static final Rule UNKNOWN_DEVICE_PEAKS = new Rule("unknown_device_peaks", Severity.INFO,
            "No device peaks are known for a GPU of the capture.",
            "Roofline bounds and decode floors need the GPU's peak FLOP rates and memory bandwidth"
                    + " (docs/roofline.md). A GPU no entry matches, or a trace that does not name its GPU, gets none;"
                    + " every other figure stands. --device-peaks FILE adds an entry.",
            List.of(), "device-names");

    /** By file id, in file id order: the GPU model (null: the trace does not name it). */
    private final Map<Integer, String> names;
    /** By file id: the matched peaks (null: none match). */
    private final Map<Integer, DevicePeaks.Device> devices;

    private FilePeaks(Map<Integer, String> names, Map<Integer, DevicePeaks.Device> devices) {
        this.names = names;
        this.devices = devices;
    }

    /** The peaks of each file of {@code files}, by the GPU model the kept analysis found for it. */
    static FilePeaks of(KeptAnalysis a, List<Integer> files, DevicePeaks peaks) throws SQLException {
        Map<Integer, String> found = new HashMap<>();
        a.query("device-names", Map.of(), rs -> {
            if (rs.getString(3) != null) {
                found.putIfAbsent(rs.getInt(1), rs.getString(3));
            }
        });
        Map<Integer, String> names = new LinkedHashMap<>();
        Map<Integer, DevicePeaks.Device> devices = new HashMap<>();
        files.stream().sorted().forEach(id -> {
            String name = found.get(id);
            names.put(id, name);
            devices.put(id, peaks.match(name));
        });
        return new FilePeaks(names, devices);
    }

    /** The first file's GPU model the trace names, or null. */
    String firstName() {
        return names.values().stream().filter(Objects::nonNull).findFirst().orElse(null);
    }

    /** The peaks of the first file whose GPU has some, or null: the floors need one GPU (a capture is one kind in practice). */
    DevicePeaks.Device firstDevice() {
        return names.keySet().stream().map(devices::get).filter(Objects::nonNull).findFirst().orElse(null);
    }

    /**
     * Each file's peaks as the parameters of query {@code roofline-work}: {@code peak_file_ids} and, aligned with
     * them, the peak rates of its GPU ({@code link_gbps} one direction; null where unknown).
     */
    Map<String, List<?>> parameters() {
        List<Integer> ids = new ArrayList<>(names.keySet());
        Map<String, List<?>> out = new LinkedHashMap<>();
        out.put("peak_file_ids", ids);
        out.put("bf16_tflops", each(ids, DevicePeaks.Device::bf16Tflops));
        out.put("fp16_tflops", each(ids, DevicePeaks.Device::fp16Tflops));
        out.put("fp8_tflops", each(ids, DevicePeaks.Device::fp8Tflops));
        out.put("int8_tops", each(ids, DevicePeaks.Device::int8Tops));
        out.put("hbm_gbps", each(ids, DevicePeaks.Device::hbmGbps));
        out.put("link_gbps", each(ids, DevicePeaks.Device::linkGbpsOneWay));
        return out;
    }

    private List<Double> each(List<Integer> ids, Function<DevicePeaks.Device, Double> rate) {
        List<Double> out = new ArrayList<>();
        for (int id : ids) {
            DevicePeaks.Device d = devices.get(id);
            out.add(d == null ? null : rate.apply(d));
        }
        return out;
    }

    /** Warnings for GPUs without peaks, and for files whose GPU the trace does not name, with their evidence over {@code a}. */
    List<Warning> warnings(KeptAnalysis a) {
        List<Warning> out = new ArrayList<>();
        TreeSet<String> unknown = new TreeSet<>();
        boolean unnamed = false;
        for (Map.Entry<Integer, String> e : names.entrySet()) {
            if (devices.get(e.getKey()) == null) {
                if (e.getValue() == null) {
                    unnamed = true;
                } else {
                    unknown.add(e.getValue());
                }
            }
        }
        if (!unknown.isEmpty()) {
            out.add(Warning.of(UNKNOWN_DEVICE_PEAKS, "unknown peak for " + String.join(", ", unknown)
                    + ": no entry of the device peaks (docs/roofline.md) matches, so no roofline bound or floor is"
                    + " given for it; --device-peaks FILE can add one", Thresholds.defaults(), a));
        }
        if (unnamed) {
            out.add(Warning.of(UNKNOWN_DEVICE_PEAKS, "unknown peak: the trace does not name the GPU its kernels"
                    + " ran on, so no roofline bound or floor is given; --device-peaks FILE cannot help without a name",
                    Thresholds.defaults(), a));
        }
        return out;
    }
}
