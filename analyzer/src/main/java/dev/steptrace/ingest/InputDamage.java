package dev.steptrace.ingest;

import java.io.IOException;

/**
 * The decompressed bytes of a trace end early because the file is damaged: cut short, corrupt, or
 * followed by bytes that are not part of it. Every byte handed out before this was thrown is what the
 * file holds, except in a member that is {@linkplain #suspectFrom() corrupt}.
 */
public final class InputDamage extends IOException {
    private static final long serialVersionUID = 1L;
    /** How the reason of a file whose kept events may hold wrong values begins (docs/schema.md, files). */
    public static final String CONTENT_MAY_BE_WRONG = "content may be wrong: ";

    private final long suspectFrom;

    private InputDamage(String reason, long suspectFrom) {
        super(reason);
        this.suspectFrom = suspectFrom;
    }

    /**
     * The rest of the file cannot be read (cut short, a later member's header broken, bytes that are not
     * gzip after the end): every byte handed out before is right.
     */
    public static InputDamage endsEarly(String reason) {
        return new InputDamage(reason, -1);
    }

    /**
     * The compressed data of a gzip member is corrupt (its checks fail, or inflating it fails): bytes of
     * this member handed out before, from decompressed offset {@code memberStart} on, may be wrong.
     */
    public static InputDamage corrupt(String reason, long memberStart) {
        return new InputDamage(reason, memberStart);
    }

    /**
     * The decompressed offset from which the bytes handed out may be wrong (the start of the corrupt
     * member), or -1 when every byte handed out is right.
     */
    public long suspectFrom() {
        return suspectFrom;
    }
}
