package dev.steptrace.ingest.nsys;

import java.io.IOException;
import java.util.List;

/** What makes a container an Nsight Systems export, and the tables steptrace reads from one. */
public final class NsysExports {
    /** Tables of which an nsys export has at least one (tables are created only when they have rows). */
    static final List<String> MARKER_TABLES = List.of("StringIds", "CUPTI_ACTIVITY_KIND_KERNEL",
            "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS", "TARGET_INFO_SESSION_START_TIME", "META_DATA_EXPORT");

    private NsysExports() {}

    /** Null when the source looks like an nsys export, else why it is not one (the file is then skipped). */
    public static String notAnExport(NsysSource src) throws IOException {
        for (String t : MARKER_TABLES) {
            if (src.has(t)) {
                return null;
            }
        }
        if (src.has("StringTable")) {
            return "an nvprof export (StringTable, _id_ columns): only Nsight Systems exports are read";
        }
        return "no Nsight Systems tables (StringIds, CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS, TARGET_INFO_*)";
    }
}
