package dev.steptrace.classify;

import dev.steptrace.common.InputException;

/**
 * A rule file that cannot be used: missing, unreadable, malformed, or with a rule that fails
 * validation. The message is one line naming the file and, where it applies, the rule and field.
 */
public final class TaxonomyException extends InputException {
    private static final long serialVersionUID = 1L;

    public TaxonomyException(String message) {
        super(message);
    }

    public TaxonomyException(String message, Throwable cause) {
        super(message, cause);
    }
}
