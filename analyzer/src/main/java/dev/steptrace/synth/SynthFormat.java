package dev.steptrace.synth;

/** What {@code steptrace synth} writes per rank. */
public enum SynthFormat {
    /** torch.profiler Chrome trace JSON ({@code .pt.trace.json[.gz]}). */
    KINETO("kineto"),
    /** An {@code nsys export --type sqlite} database ({@code rank<N>.sqlite}). */
    NSYS_SQLITE("nsys-sqlite");

    private final String id;

    SynthFormat(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    public static SynthFormat ofId(String id) {
        for (SynthFormat f : values()) {
            if (f.id.equals(id)) {
                return f;
            }
        }
        return null;
    }
}
