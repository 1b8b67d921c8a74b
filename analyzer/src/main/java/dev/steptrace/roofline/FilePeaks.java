package dev.steptrace.roofline;

import dev.steptrace.analysis.CaptureScope;
import dev.steptrace.analysis.StoredAnalysis;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

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
            List.of(), """
            SELECT DISTINCT rank, name FROM rank_devices
            WHERE capture_id = 1 AND analysis_key = 'default' ORDER BY rank
            """);

    /** By file id, in file id order: the GPU model (null: the trace does not name it). */
    private final Map<Integer, String> names;
    /** By file id: the matched peaks (null: none match). */
    private final Map<Integer, DevicePeaks.Device> devices;

    private FilePeaks(Map<Integer, String> names, Map<Integer, DevicePeaks.Device> devices) {
        this.names = names;
        this.devices = devices;
    }

    static FilePeaks of(StoredAnalysis a, DevicePeaks peaks) throws SQLException {
        Map<Integer, String> found = new HashMap<>();
        try (PreparedStatement ps = a.prepare("""
                SELECT file_id, min(name) FROM rank_devices
                WHERE capture_id = $1 AND analysis_key = $2 AND name IS NOT NULL GROUP BY file_id
                """); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                found.put(rs.getInt(1), rs.getString(2));
            }
        }
        Map<Integer, String> names = new LinkedHashMap<>();
        Map<Integer, DevicePeaks.Device> devices = new HashMap<>();
        a.scope().files().stream().map(CaptureScope.FileInfo::fileId).sorted().forEach(id -> {
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
     * A table expression {@code p(file_id, bf16_tflops, fp16_tflops, fp8_tflops, int8_tops, hbm_gbps,
     * link_gbps)}: each file's peaks ({@code link_gbps} one direction; NULL where unknown), to join the
     * kept {@code kernel_work} with.
     */
    String table() {
        StringBuilder sb = new StringBuilder("(VALUES ");
        boolean first = true;
        for (int id : names.keySet()) {
            DevicePeaks.Device d = devices.get(id);
            sb.append(first ? "" : ", ").append('(').append(id);
            for (Double v : d == null ? new Double[6] : new Double[] {d.bf16Tflops(), d.fp16Tflops(), d.fp8Tflops(),
                    d.int8Tops(), d.hbmGbps(), d.linkGbpsOneWay()}) {
                sb.append(", ").append(v == null ? "NULL" : BigDecimal.valueOf(v).toPlainString()).append("::DOUBLE");
            }
            sb.append(')');
            first = false;
        }
        if (first) {
            sb.append("(NULL::INTEGER, NULL::DOUBLE, NULL::DOUBLE, NULL::DOUBLE, NULL::DOUBLE, NULL::DOUBLE, NULL::DOUBLE)");
        }
        return sb.append(") p(file_id, bf16_tflops, fp16_tflops, fp8_tflops, int8_tops, hbm_gbps, link_gbps)").toString();
    }

    /** Warnings for GPUs without peaks, and for files whose GPU the trace does not name. */
    List<Warning> warnings() {
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
            out.add(new Warning(UNKNOWN_DEVICE_PEAKS, "unknown peak for " + String.join(", ", unknown)
                    + ": no entry of the device peaks (docs/roofline.md) matches, so no roofline bound or floor is"
                    + " given for it; --device-peaks FILE can add one"));
        }
        if (unnamed) {
            out.add(new Warning(UNKNOWN_DEVICE_PEAKS, "unknown peak: the trace does not name the GPU its kernels"
                    + " ran on, so no roofline bound or floor is given; --device-peaks FILE cannot help without a name"));
        }
        return out;
    }
}
