package dev.steptrace.decide;

import dev.steptrace.common.InputException;

/**
 * A scenario that cannot be used: one line naming the file and the field
 * ({@code scenario.yaml: options[2].effect.scale: expected a number, got "half"}).
 */
public final class ScenarioException extends InputException {
    public ScenarioException(String message) {
        super(message);
    }

    public ScenarioException(String message, Throwable cause) {
        super(message, cause);
    }
}
