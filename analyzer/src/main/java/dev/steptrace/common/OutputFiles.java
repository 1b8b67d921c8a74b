package dev.steptrace.common;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Writes the documents steptrace produces (reports, charts, diffs, memos) atomically: into a file
 * beside the target, moved into place once complete. A failed render, a full disk or a directory that
 * refuses the file never leaves an empty or half-written document behind, nor replaces a good one.
 * Also removes what an output replaces ({@link #deleteTree}).
 */
public final class OutputFiles {
    private OutputFiles() {}

    /** Writes a document's bytes to a stream. */
    public interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    public static void write(Path target, Content content) throws IOException {
        // Not Files.createTempFile: its owner-only permissions would stay on the document.
        Path tmp = target.resolveSibling("." + target.getFileName() + "." + ProcessHandle.current().pid()
                + "." + System.nanoTime() + ".tmp");
        try {
            try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                content.writeTo(out);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    public static void write(Path target, String text) throws IOException {
        write(target, out -> out.write(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** Deletes a file or a directory with everything under it; nothing when it does not exist. */
    public static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(p)) {
            for (Path q : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(q);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
