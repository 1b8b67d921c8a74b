package dev.steptrace.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.zip.GZIPOutputStream;

/** Gzip as torch.profiler and the gzip tool write it: one member. */
public final class Gzip {
    private Gzip() {
    }

    /** {@code content} compressed into one gzip member. */
    public static byte[] of(byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(content.length / 8 + 32);
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
