package dev.steptrace.synth.model;

import dev.steptrace.common.Identified;

/**
 * The inference phases a synthetic capture contains; EXPECTED.json reports each separately, by the id
 * report.json uses ({@code prefill}, {@code decode}).
 */
public enum Phase implements Identified {
    PREFILL,
    DECODE
}
