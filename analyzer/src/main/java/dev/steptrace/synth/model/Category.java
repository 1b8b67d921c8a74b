package dev.steptrace.synth.model;

import java.util.Locale;

/**
 * The SPEC's headline kernel categories, in the SPEC's order. The generator labels every kernel it
 * writes with one of them so that EXPECTED.json can state the ground truth an analysis is checked
 * against; the ids are the ones {@code report.json} uses.
 */
public enum Category {
    ALLREDUCE,
    COMM_OTHER,
    ATTENTION,
    MOE_GEMM,
    GEMM,
    ROUTING,
    MEMCPY,
    OTHER;

    /** The SPEC id, e.g. {@code moe_gemm}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The category with this SPEC id, or {@code null}. */
    public static Category byId(String id) {
        for (Category c : values()) {
            if (c.id().equals(id)) {
                return c;
            }
        }
        return null;
    }
}
