package dev.steptrace.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import dev.steptrace.common.BundledData;
import java.util.ArrayList;
import java.util.List;

/**
 * The runtime and driver calls that block the CPU until the GPU has done its queued work ({@code
 * host-sync-calls.yaml}, with sources): what step time counts as host syncs (docs/reports.md, "Step time") and
 * what a replay holds back until the GPU catches up (docs/whatif.md).
 */
public final class HostSyncCalls {
    /** Their names. */
    public static final List<String> NAMES = load();

    private HostSyncCalls() {}

    private static List<String> load() {
        List<String> names = new ArrayList<>();
        for (JsonNode n : BundledData.yaml(HostSyncCalls.class, "host-sync-calls.yaml").path("calls")) {
            names.add(n.path("name").asText());
        }
        return List.copyOf(names);
    }
}
