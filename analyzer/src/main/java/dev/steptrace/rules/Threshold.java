package dev.steptrace.rules;

/**
 * A number a rule compares a measurement against, with its default; {@link Thresholds} holds the
 * values a run uses.
 *
 * @param name         the threshold's name within its rule
 * @param defaultValue the value used unless overridden
 * @param unit         the value's unit, for the catalogue ({@code %}, {@code µs})
 * @param meaning      what crossing it means, one phrase
 */
public record Threshold(String name, double defaultValue, String unit, String meaning) {}
