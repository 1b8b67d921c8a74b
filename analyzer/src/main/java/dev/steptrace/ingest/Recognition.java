package dev.steptrace.ingest;

/**
 * An importer's answer about one file: a claim ({@code format} set, the id stored in
 * {@code files.format}) or a refusal ({@code reason} set: the file is of the importer's kind but is not
 * read, and the reason says why and what to do).
 */
public record Recognition(String format, boolean compressed, String reason) {
    public static Recognition claim(String format, boolean compressed) {
        return new Recognition(format, compressed, null);
    }

    public static Recognition claim(String format) {
        return claim(format, false);
    }

    public static Recognition refuse(String reason) {
        return new Recognition(null, false, reason);
    }

    public boolean claimed() {
        return format != null;
    }
}
