package dev.steptrace.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A file as importers recognise it: its path, its first bytes (up to {@link #SIZE}), and whether the user
 * named the file itself ({@code given}) rather than a directory it was found in.
 */
public record FileHead(Path path, byte[] bytes, boolean given) {
    /** Enough for a magic number or a CSV header line. */
    public static final int SIZE = 4096;

    /** The head of a file found in a directory. */
    public static FileHead read(Path path) throws IOException {
        return read(path, false);
    }

    public static FileHead read(Path path, boolean given) throws IOException {
        try (InputStream in = Files.newInputStream(path)) {
            return new FileHead(path, in.readNBytes(SIZE), given);
        }
    }

    public boolean startsWith(byte[] magic) {
        return bytes.length >= magic.length && Arrays.equals(bytes, 0, magic.length, magic, 0, magic.length);
    }

    public boolean startsWith(String ascii) {
        return startsWith(ascii.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * The first line (without its line end) as UTF-8; null when it runs past the head (a file of one
     * line shorter than the head is that line).
     */
    public String firstLine() {
        int end = -1;
        for (int i = 0; i < bytes.length && end < 0; i++) {
            if (bytes[i] == '\n') {
                end = i > 0 && bytes[i - 1] == '\r' ? i - 1 : i;
            }
        }
        if (end < 0 && bytes.length == SIZE) {
            return null;
        }
        return new String(bytes, 0, end < 0 ? bytes.length : end, StandardCharsets.UTF_8);
    }

    public String fileName() {
        return path.getFileName().toString();
    }
}
