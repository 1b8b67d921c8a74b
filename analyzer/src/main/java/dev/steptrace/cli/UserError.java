package dev.steptrace.cli;

/** A failure the user can act on; its message is printed as it is, without a stack trace. */
public final class UserError extends RuntimeException {
    public UserError(String message) {
        super(message);
    }

    public UserError(String message, Throwable cause) {
        super(message, cause);
    }
}
