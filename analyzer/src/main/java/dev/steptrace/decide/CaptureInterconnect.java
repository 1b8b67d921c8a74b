package dev.steptrace.decide;

import com.fasterxml.jackson.databind.JsonNode;
import dev.steptrace.common.BundledData;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The interconnect between a capture's GPUs, from its device names and the data file
 * {@code interconnects.yaml} (docs/scenarios.md): {@code nvlink}, {@code pcie}, {@code xgmi}, or null when the
 * names do not settle it (unknown stays unknown) or the capture ran on one GPU.
 *
 * @param interconnect the interconnect, or null
 * @param evidence     where it came from: the device name, the entry's source, or why it is unknown
 */
public record CaptureInterconnect(String interconnect, String evidence) {
    private record Entry(Pattern match, String interconnect, String source) {}

    private static final List<Entry> ENTRIES = load();

    public static CaptureInterconnect of(List<String> devices, int gpus) {
        if (gpus <= 1) {
            return new CaptureInterconnect(null, "the capture runs on one GPU: no GPU-to-GPU link is in use");
        }
        if (devices == null || devices.isEmpty()) {
            return new CaptureInterconnect(null, "unknown: the capture names no devices");
        }
        Set<String> found = new LinkedHashSet<>();
        List<String> why = new ArrayList<>();
        for (String device : devices) {
            Entry e = ENTRIES.stream().filter(x -> x.match().matcher(device).find()).findFirst().orElse(null);
            found.add(e == null ? "unknown" : e.interconnect());
            why.add("\"" + device + "\": " + (e == null ? "no entry of interconnects.yaml names it" : e.interconnect()
                    + " (" + e.source() + ")"));
        }
        String one = found.size() == 1 ? found.iterator().next() : null;
        String evidence = "device names: " + String.join("; ", why);
        return "unknown".equals(one) || one == null ? new CaptureInterconnect(null, "unknown: " + evidence)
                : new CaptureInterconnect(one, evidence);
    }

    private static List<Entry> load() {
        List<Entry> out = new ArrayList<>();
        for (JsonNode n : BundledData.yaml(CaptureInterconnect.class, "interconnects.yaml").path("devices")) {
            out.add(new Entry(Pattern.compile(n.path("match").asText()), n.path("interconnect").asText(),
                    n.path("source").asText()));
        }
        return List.copyOf(out);
    }
}
