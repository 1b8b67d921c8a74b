package dev.steptrace.roofline;

import java.util.Objects;

/**
 * What the roofline needs besides the traces: the device peaks (built-in, or with a user's file in
 * front) and an optional model file.
 *
 * @param model null without {@code --model}
 */
public record RooflineInputs(DevicePeaks peaks, ModelSpec model) {
    public RooflineInputs {
        Objects.requireNonNull(peaks, "peaks");
    }

    /** The built-in peaks, no model file. */
    public static RooflineInputs defaults() {
        return new RooflineInputs(DevicePeaks.builtIn(), null);
    }
}
