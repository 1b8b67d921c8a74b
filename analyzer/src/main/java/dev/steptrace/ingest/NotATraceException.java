package dev.steptrace.ingest;

import java.io.IOException;

/** The bytes are not a trace of the importer's format after all; the file is skipped with this reason. */
public final class NotATraceException extends IOException {
    private final long offset;

    public NotATraceException(String reason, long offset) {
        super(reason);
        this.offset = offset;
    }

    /** Byte offset the reason refers to, or -1. */
    public long offset() {
        return offset;
    }
}
