package dev.steptrace.decide;

/**
 * A scenario that cannot be used: one line naming the file and the field
 * ({@code scenario.yaml: options[2].effect.scale: expected a number, got "half"}).
 */
public final class ScenarioException extends RuntimeException {
    public ScenarioException(String message) {
        super(message);
    }

    public ScenarioException(String message, Throwable cause) {
        super(message, cause);
    }
}
