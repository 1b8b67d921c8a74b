package dev.steptrace.common;

/**
 * What a user gave cannot be used: a file (a rule file, a scenario, device peaks, a model file), an option, a
 * path, a query. The message is the whole story, one line naming what and where, so the command line prints it
 * as it is, once, for every such failure (cli.Main), without a stack trace.
 */
public class InputException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InputException(String message) {
        super(message);
    }

    public InputException(String message, Throwable cause) {
        super(message, cause);
    }
}
