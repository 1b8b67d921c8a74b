package dev.steptrace.api;

/**
 * A failure of the steptrace API, unchecked so that notebook cells and lambdas need no
 * {@code try}/{@code catch}.
 *
 * <p>Two kinds: a problem the caller can act on (a missing path, no trace found, an unknown capture or
 * phase, a query DuckDB rejects, a chart column that does not exist), whose message is the whole story;
 * and an {@linkplain #internal internal failure} (a database or I/O error that is not the caller's
 * doing), whose cause is the exception that was raised.
 */
public final class SteptraceException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final boolean userError;

    /**
     * A problem the caller can act on, described in one line.
     *
     * @param message what is wrong and, where it helps, what to do
     */
    public SteptraceException(String message) {
        this(message, null, true);
    }

    /**
     * A problem the caller can act on, described in one line, raised by {@code cause} (e.g. the
     * {@link java.sql.SQLException} of a query with a syntax error).
     *
     * @param message what is wrong
     * @param cause   the exception that reported it
     */
    public SteptraceException(String message, Throwable cause) {
        this(message, cause, true);
    }

    private SteptraceException(String message, Throwable cause, boolean userError) {
        super(message, cause);
        this.userError = userError;
    }

    /**
     * A failure that is not the caller's doing (a database or I/O error).
     *
     * @param message what was being done
     * @param cause   the exception raised
     * @return the exception to throw
     */
    public static SteptraceException internal(String message, Throwable cause) {
        return new SteptraceException(message, cause, false);
    }

    /**
     * Whether the message alone tells the caller what to fix (true), or the failure is internal and its
     * cause holds the details (false).
     *
     * @return true for a problem the caller can act on
     */
    public boolean userError() {
        return userError;
    }
}
