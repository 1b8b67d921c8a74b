package dev.steptrace.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What a path that is not a regular file is, for the messages that refuse to open it. */
public final class FileKind {
    private FileKind() {}

    /**
     * Null for a regular file (links followed) or a path that does not exist; else what it is, as {@code not a
     * regular file (a FIFO)} (opening it would block until something writes to it), {@code (a device)}, {@code
     * (a socket)}, {@code (a directory)}, or no more than {@code not a regular file} when the file system does
     * not say.
     */
    public static String notRegular(Path p) {
        String kind = kind(p);
        return kind == null ? null : kind.isEmpty() ? "not a regular file" : "not a regular file (" + kind + ")";
    }

    private static String kind(Path p) {
        if (Files.isRegularFile(p) || !Files.exists(p)) {
            return null;
        }
        if (Files.isDirectory(p)) {
            return "a directory";
        }
        try {
            int type = (Integer) Files.getAttribute(p, "unix:mode") & 0170000;
            switch (type) {
                case 0010000:
                    return "a FIFO";
                case 0020000:
                case 0060000:
                    return "a device";
                case 0140000:
                    return "a socket";
                default:
                    break;
            }
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            // no unix view: the generic answer below
        }
        return "";
    }
}
