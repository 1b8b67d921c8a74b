package dev.steptrace.synth.model;

import java.util.Locale;

/** The inference phases a synthetic capture contains; EXPECTED.json reports each separately. */
public enum Phase {
    PREFILL,
    DECODE;

    /** The id used in EXPECTED.json and report.json ({@code prefill}, {@code decode}). */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
