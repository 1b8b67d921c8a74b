package dev.steptrace.report;

import java.io.IOException;

/** A report template that cannot be found, parsed or rendered; the message is one line for users. */
public final class ReportTemplateException extends IOException {
    private static final long serialVersionUID = 1L;

    public ReportTemplateException(String message, Throwable cause) {
        super(message, cause);
    }
}
