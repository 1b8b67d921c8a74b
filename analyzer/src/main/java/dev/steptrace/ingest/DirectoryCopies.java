package dev.steptrace.ingest;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Tells which files of a directory hold the same content as another file of it: the same bytes, or the same
 * JSON once decompressed (a gunzipped copy left beside its {@code .gz}). Files are offered in claim order; the
 * first with a content keeps it, and every later one with that content is its copy. Loading a copy would count
 * its rank twice, or make it a second run (docs/schema.md, "Captures").
 */
final class DirectoryCopies {
    /** A file offered: where it lies and what is known of its content. */
    static final class Candidate {
        private final Path path;
        private final boolean compressed;
        private final Fingerprint stored;
        private final Fingerprint.Content content;
        /** Whether its bytes on disk may no longer be those fingerprinted (a file the store holds). */
        private final boolean checkBytes;
        /** Its decompressed fingerprint once asked for; {@link #NONE} when it has none. */
        private Fingerprint inflated;

        /**
         * @param stored  its fingerprint, of its bytes as stored (no content hash for a file fingerprinted
         *                while it loads: no other file of its directory then has its size)
         * @param content what its content is once decompressed, as far as is known without inflating it: a
         *                gzip file's trailer, a plain file's own fingerprint (of a format whose content is the same gzipped: Importer.Capability.CONTENT_FINGERPRINT); null when it can be neither a
         *                gunzipped copy nor the original of one
         */
        Candidate(Path path, boolean compressed, Fingerprint stored, Fingerprint.Content content, boolean checkBytes) {
            this.path = path;
            this.compressed = compressed;
            this.stored = stored;
            this.content = content;
            this.checkBytes = checkBytes;
        }

        /**
         * A file found now, fingerprinted as it is.
         *
         * @param sameContentGzipped whether its format's content is the same plain or gzipped
         * @param trailer a gzip file's {@link Fingerprint#gzipContent}, else null
         */
        static Candidate of(Path path, boolean sameContentGzipped, boolean compressed, Fingerprint fingerprint,
                            Fingerprint.Content trailer) {
            return new Candidate(path, compressed, fingerprint, content(sameContentGzipped, compressed, fingerprint, trailer), false);
        }

        /**
         * A file the store holds, with its stored fingerprint: a gzip file's bytes are checked against it before
         * its content is compared once decompressed (changed in place at the same size, its content on disk is
         * not that of its rows).
         */
        static Candidate stored(Path path, boolean sameContentGzipped, boolean compressed, Fingerprint fingerprint,
                                Fingerprint.Content trailer) {
            return new Candidate(path, compressed, fingerprint, content(sameContentGzipped, compressed, fingerprint, trailer), true);
        }

        private static Fingerprint.Content content(boolean sameContentGzipped, boolean compressed, Fingerprint fingerprint,
                                                   Fingerprint.Content trailer) {
            return !sameContentGzipped ? null : compressed ? trailer : fingerprint.content();
        }

        Path dir() {
            return path.getParent();
        }

        long size() {
            return stored.size();
        }

        boolean compressed() {
            return compressed;
        }

        Fingerprint.Content content() {
            return content;
        }

        /**
         * The fingerprint of its content once decompressed, or null when it cannot be had (a damaged or
         * unreadable gzip file, a plain file fingerprinted while loading). A gzip file is inflated once, and
         * only when its trailer matches another file's content.
         */
        Fingerprint decompressed() {
            if (!compressed) {
                return stored.contentHash() == null ? null : stored;
            }
            if (inflated == null) {
                try {
                    Fingerprint f = checkBytes && !Fingerprint.of(path, List.of(path)).equals(stored) ? null
                            : Fingerprint.ofGunzipped(path);
                    inflated = f != null ? f : NONE;
                } catch (IOException e) {
                    // Its load reports it.
                    inflated = NONE;
                }
            }
            return inflated == NONE ? null : inflated;
        }
    }

    /** The file a candidate is a copy of, and whether only once decompressed. */
    record Copy(Path of, boolean onceDecompressed) {}

    /** A damaged gzip file's decompressed fingerprint: it has none, and is no copy (docs/schema.md). */
    private static final Fingerprint NONE = new Fingerprint(-1, null);

    private final Map<String, Path> byBytes = new HashMap<>();
    private final Map<String, List<Candidate>> byContent = new HashMap<>();

    /** The file {@code c} is a copy of, or null when it is the first of its directory with its content. */
    Copy claim(Candidate c) {
        String dir = c.dir() + "/";
        String bytes = c.stored.contentHash() == null ? null
                : dir + c.stored.contentHash() + "/" + c.stored.size();
        Path same = bytes == null ? null : byBytes.get(bytes);
        if (same != null) {
            return new Copy(same, false);
        }
        if (c.content != null) {
            List<Candidate> earlier = byContent.computeIfAbsent(dir + c.content, k -> new ArrayList<>());
            // Each earlier file with that trailer is compared: the first may be damaged, a later one intact.
            Fingerprint once = earlier.isEmpty() ? null : c.decompressed();
            for (Candidate e : earlier) {
                if (once != null && once.equals(e.decompressed())) {
                    return new Copy(e.path, true);
                }
            }
            earlier.add(c);
        }
        if (bytes != null) {
            byBytes.put(bytes, c.path);
        }
        return null;
    }
}
