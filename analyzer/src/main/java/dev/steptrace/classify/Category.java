package dev.steptrace.classify;

import java.util.Locale;
import java.util.Optional;

/** The headline kernel categories (docs/taxonomy.md, "Categories"), in report order, with their ids and labels. */
public enum Category {
    ALLREDUCE("allreduce", "AllReduce (NCCL + custom)"),
    COMM_OTHER("comm_other", "Other collectives (all-gather, reduce-scatter, all-to-all, send/recv)"),
    ATTENTION("attention", "Attention"),
    MOE_GEMM("moe_gemm", "MoE GEMMs (Marlin, fused_moe, grouped)"),
    GEMM("gemm", "Other GEMMs (cuBLAS, CUTLASS, nvjet)"),
    ROUTING("routing", "MoE routing (gating, top-k, align/sort)"),
    MEMCPY("memcpy", "Memcpy / memset"),
    OTHER("other", "Everything else");

    private final String id;
    private final String label;

    Category(String id, String label) {
        this.id = id;
        this.label = label;
    }

    /** The stable id used in rule files, the store and report.json. */
    public String id() {
        return id;
    }

    /** The label reports print. */
    public String label() {
        return label;
    }

    /** The category with this id, if there is one. */
    public static Optional<Category> ofId(String id) {
        for (Category c : values()) {
            if (c.id.equals(id)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /** The ids, comma-separated, for messages. */
    public static String ids() {
        StringBuilder b = new StringBuilder();
        for (Category c : values()) {
            b.append(b.length() > 0 ? ", " : "").append(c.id);
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return id.toLowerCase(Locale.ROOT);
    }
}
