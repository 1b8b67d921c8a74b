package dev.steptrace.common;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A step's phase (docs/architecture.md, "Report, step by step", 3), in report order. Ids are what the
 * store's {@code phase} columns, report.json and {@code --phase} hold; labels are what reports and memos
 * print.
 */
public enum Phase implements Labelled {
    DECODE("Decode"),
    PREFILL("Prefill"),
    MIXED("Mixed (prefill + decode)"),
    /** Steps neither vLLM's counts nor an annotation inside them place. */
    UNKNOWN("Unknown phase");

    /** Every phase id, in report order. */
    public static final List<String> IDS = Arrays.stream(values()).map(Phase::id).toList();

    private final String label;

    Phase(String label) {
        this.label = label;
    }

    @Override
    public String label() {
        return label;
    }

    /** The phase with this id, if any. */
    public static Optional<Phase> of(String id) {
        return Identified.byId(Phase.class, id);
    }

    /** The label of a phase id; an id that is no phase prints as it is, a missing one as {@code n/a}. */
    public static String labelOf(String id) {
        return Labelled.labelOf(Phase.class, id);
    }

    /** Report order of a phase id: the phases first, in their order, anything else after them. */
    public static int order(String id) {
        return of(id).map(Enum::ordinal).orElse(values().length);
    }
}
