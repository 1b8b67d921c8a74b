package dev.steptrace.common;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Writes the documents steptrace produces (reports, charts, diffs, memos) atomically: into a file
 * beside the target, moved into place once complete. A failed render, a full disk or a directory that
 * refuses the file never leaves an empty or half-written document behind, nor replaces a good one.
 * Also removes what an output replaces ({@link #deleteTree}).
 */
public final class OutputFiles {
    /**
     * Where report, diff, decide and timeline write without {@code --out}, in the working directory; a folder
     * of this name met inside an input directory is never read as input.
     */
    public static final String DEFAULT_DIR = "steptrace-out";
    /**
     * The schema of the timelines steptrace writes, in their metadata near the file's start: what tells
     * ingest that a Kineto-shaped file in a directory is steptrace's own output.
     */
    public static final String TIMELINE_SCHEMA = "steptrace.timeline/1";
    /** {@code .report.html.steptrace.1234.56789.tmp}: the process id is the first number. */
    private static final Pattern TEMPORARY = Pattern.compile("\\..+\\.steptrace\\.(\\d+)\\.\\d+\\.tmp");

    private OutputFiles() {}

    /** Writes a document's bytes to a stream. */
    public interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    public static void write(Path target, Content content) throws IOException {
        Path tmp = temporary(target);
        try {
            try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                content.writeTo(out);
            }
            moveIntoPlace(tmp, target);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * A name for the file (or directory) a document is written into before {@link #moveIntoPlace}: beside the
     * target, hidden, and unique to this process and moment, so that two commands writing one document never
     * share it. Such files that a killed steptrace left in the target's directory go first.
     */
    public static Path temporary(Path target) throws IOException {
        removeLeftovers(target.toAbsolutePath().getParent());
        // Not Files.createTempFile: its owner-only permissions would stay on the document.
        return target.resolveSibling("." + target.getFileName() + ".steptrace." + ProcessHandle.current().pid()
                + "." + System.nanoTime() + ".tmp");
    }

    /** Replaces {@code target} by the complete {@code tmp} in one step: readers see the old file or the new. */
    public static void moveIntoPlace(Path tmp, Path target) throws IOException {
        try {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** The temporary files of {@link #temporary} in {@code dir} whose process is no longer running. */
    private static void removeLeftovers(Path dir) {
        if (dir == null || !Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> tmps = Files.newDirectoryStream(dir, ".*.steptrace.*.tmp")) {
            for (Path p : tmps) {
                Matcher m = TEMPORARY.matcher(p.getFileName().toString());
                if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
                    deleteTree(p);
                }
            }
        } catch (IOException | NumberFormatException | UncheckedIOException e) {
            // Left for a later run: a directory that cannot be listed fails the write itself with its reason.
        }
    }

    /**
     * A name from the store (a capture's: a directory's name, or anything a shared store holds) as one folder
     * name under the output directory: percent-encoded where it would leave the folder or act on a terminal,
     * as the export's partition names are ({@code /} as {@code %2F}; {@code ..} as {@code %2E%2E}).
     */
    public static String folderName(String name) {
        if (name.isEmpty() || name.equals(".") || name.equals("..")) {
            return name.isEmpty() ? "_" : name.replace(".", "%2E");
        }
        StringBuilder sb = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '/' || c == '\\' || c == '%' || c == 0 || Messages.acts(c)) {
                for (byte b : String.valueOf(c).getBytes(StandardCharsets.UTF_8)) {
                    sb.append(String.format("%%%02X", b & 0xFF));
                }
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
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
