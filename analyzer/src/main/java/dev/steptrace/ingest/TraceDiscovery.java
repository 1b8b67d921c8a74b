package dev.steptrace.ingest;

import dev.steptrace.common.Messages;
import dev.steptrace.ingest.nsys.ArrowStreamSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Finds the traces under the paths given on the command line (directories recursively) and
 * recognizes each by its content, not its name:
 * <ul>
 *   <li>Kineto: JSON (plain or gzip) that starts with an object or array;</li>
 *   <li>Nsight Systems SQLite export: the SQLite header {@code SQLite format 3\0};</li>
 *   <li>Nsight Systems Arrow export: an Arrow IPC stream (continuation marker {@code 0xFFFFFFFF})
 *       whose first schema names its table in the metadata key {@code table_name};</li>
 *   <li>Nsight Systems Parquet export: a directory holding nsys tables as {@code <TABLE>.parquet}
 *       ({@code StringIds}, {@code CUPTI_ACTIVITY_KIND_*}, {@code NVTX_EVENTS}, {@code TARGET_INFO_*},
 *       {@code META_DATA_*}) in Parquet files (magic {@code PAR1}). The directory is one trace.</li>
 * </ul>
 * Everything else is reported as skipped, with the reason.
 */
public final class TraceDiscovery {
    private static final byte[] SQLITE_MAGIC = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PARQUET_MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ARROW_FILE_MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);
    /** File names of nsys export tables: what makes a directory of Parquet files an nsys export. */
    private static final Pattern NSYS_TABLE = Pattern.compile(
            "(StringIds|CUPTI_ACTIVITY_KIND_\\w+|NVTX_EVENTS|TARGET_INFO_\\w+|META_DATA_\\w+|ThreadNames|PROCESSES"
                    + "|MPI_RANKS)\\.parquet");

    private TraceDiscovery() {}

    /**
     * A file that looks like a trace; {@code dir} is the directory whose traces are grouped into captures
     * (its parent; for an nsys Parquet export, the directory's parent).
     */
    public record Found(Path path, Path dir, TraceFormat format, boolean compressed) {}

    /**
     * A path that is not loaded: not a trace ({@code failed} false), or one that could not be read
     * ({@code failed} true: permissions, I/O errors).
     */
    public record Skipped(Path path, String reason, boolean failed) {
        static Skipped notATrace(Path path, String reason) {
            return new Skipped(path, reason, false);
        }

        static Skipped unreadable(Path path, IOException e) {
            return new Skipped(path, "cannot read: " + Messages.io(e), true);
        }
    }

    public record Result(List<Found> traces, List<Skipped> skipped) {}

    /**
     * @param exclude files never to treat as input (the store itself when it lies under an input)
     * @throws NoSuchFileException when an input path does not exist
     */
    public static Result discover(List<Path> inputs, Set<Path> exclude) throws IOException {
        Map<Path, Found> traces = new LinkedHashMap<>();
        List<Skipped> skipped = new ArrayList<>();
        for (Path input : inputs) {
            Path abs = input.toAbsolutePath().normalize();
            if (!Files.exists(abs)) {
                throw new NoSuchFileException(input.toString(), null, "no such file or directory");
            }
            List<Path> files = new ArrayList<>();
            List<Path> parquetDirs = new ArrayList<>();
            if (Files.isDirectory(abs)) {
                walk(abs, files, parquetDirs, skipped);
            } else {
                files.add(abs);
            }
            for (Path dir : parquetDirs) {
                Path real = dir.toRealPath();
                if (!traces.containsKey(real)) {
                    traces.put(real, new Found(real, real.getParent(), TraceFormat.NSYS_PARQUET, false));
                }
            }
            for (Path file : files) {
                Path real;
                try {
                    real = file.toRealPath();
                } catch (IOException e) {
                    skipped.add(Skipped.unreadable(file, e));
                    continue;
                }
                if (traces.containsKey(real) || exclude.contains(real) || isStoreFile(real)) {
                    continue;
                }
                String special = notRegular(real);
                if (special != null) {
                    // Never opened: a FIFO would block the ingest, a device could be read for ever.
                    skipped.add(Skipped.notATrace(file, special));
                    continue;
                }
                try {
                    Sniffed what = identify(real);
                    if (what.format() != null) {
                        traces.put(real, new Found(real, real.getParent(), what.format(),
                                what.format() == TraceFormat.KINETO && isGzip(real)));
                    } else {
                        skipped.add(Skipped.notATrace(real, what.reason()));
                    }
                } catch (IOException e) {
                    skipped.add(Skipped.unreadable(real, e));
                }
            }
        }
        return new Result(new ArrayList<>(traces.values()), skipped);
    }

    /** Null for a regular file, else what it is (a FIFO, a device...). */
    private static String notRegular(Path real) {
        if (Files.isRegularFile(real)) {
            return null;
        }
        try {
            int type = (Integer) Files.getAttribute(real, "unix:mode") & 0170000;
            switch (type) {
                case 0010000:
                    return "not a regular file (a FIFO): not read";
                case 0020000:
                case 0060000:
                    return "not a regular file (a device): not read";
                case 0140000:
                    return "not a regular file (a socket): not read";
                default:
                    break;
            }
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            // no unix view: the generic reason below
        }
        return "not a regular file: not read";
    }

    /**
     * Regular files under {@code dir} in path order, except inside nsys Parquet exports, which are
     * collected whole (the directory given itself included).
     */
    private static void walk(Path dir, List<Path> files, List<Path> parquetDirs, List<Skipped> skipped)
            throws IOException {
        List<Path> found = new ArrayList<>();
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
                try {
                    if (isNsysParquetDir(d)) {
                        parquetDirs.add(d);
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                } catch (IOException e) {
                    skipped.add(Skipped.unreadable(d, e));
                    return FileVisitResult.SKIP_SUBTREE;
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) {
                if (attrs.isSymbolicLink() && Files.isDirectory(f)) {
                    skipped.add(Skipped.notATrace(f, "a link to a directory: not followed"));
                } else {
                    // Links to files, broken links and special files: checked one by one in discover.
                    found.add(f);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) {
                // One unreadable directory or file costs itself, not the rest of the capture.
                skipped.add(Skipped.unreadable(f, e));
                return FileVisitResult.CONTINUE;
            }
        });
        found.sort(null);
        files.addAll(found);
        parquetDirs.sort(null);
    }

    /**
     * A directory that {@code nsys export --type parquetdir} wrote: it holds {@code <TABLE>.parquet}
     * files named after nsys tables, and they are Parquet files.
     */
    public static boolean isNsysParquetDir(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        Path sample = null;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "*.parquet")) {
            for (Path p : entries) {
                if (NSYS_TABLE.matcher(p.getFileName().toString()).matches() && Files.isRegularFile(p)) {
                    sample = p;
                    break;
                }
            }
        }
        return sample != null && startsWith(sample, PARQUET_MAGIC);
    }

    /** The Parquet files of an nsys Parquet export, sorted: what its fingerprint covers. */
    public static List<Path> parquetFiles(Path dir) throws IOException {
        TreeSet<Path> files = new TreeSet<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "*.parquet")) {
            for (Path p : entries) {
                if (Files.isRegularFile(p)) {
                    files.add(p);
                }
            }
        }
        return new ArrayList<>(files);
    }

    private static boolean isStoreFile(Path p) {
        String name = p.getFileName().toString();
        return name.endsWith(".duckdb") || name.endsWith(".duckdb.wal");
    }

    private static boolean isGzip(Path p) throws IOException {
        try (InputStream in = Files.newInputStream(p)) {
            return in.read() == 0x1f && in.read() == 0x8b;
        }
    }

    /** A file's format, or why it is not a trace. */
    record Sniffed(TraceFormat format, String reason) {
        static Sniffed is(TraceFormat f) {
            return new Sniffed(f, null);
        }

        static Sniffed not(String reason) {
            return new Sniffed(null, reason);
        }
    }

    static Sniffed identify(Path p) throws IOException {
        byte[] head;
        try (InputStream in = Files.newInputStream(p)) {
            head = in.readNBytes(16);
        }
        if (head.length >= SQLITE_MAGIC.length && Arrays.equals(head, 0, SQLITE_MAGIC.length, SQLITE_MAGIC, 0,
                SQLITE_MAGIC.length)) {
            return Sniffed.is(TraceFormat.NSYS_SQLITE);
        }
        if (head.length >= 8 && head[0] == (byte) 0xFF && head[1] == (byte) 0xFF && head[2] == (byte) 0xFF
                && head[3] == (byte) 0xFF) {
            String notNsys = arrowStreamTable(p);
            return notNsys == null ? Sniffed.is(TraceFormat.NSYS_ARROW) : Sniffed.not(notNsys);
        }
        if (head.length >= 6 && Arrays.equals(head, 0, 6, ARROW_FILE_MAGIC, 0, 6)) {
            return Sniffed.not("Arrow IPC file format (nsys --type arrowdir is not read; export with --type arrow,"
                    + " parquetdir or sqlite)");
        }
        if (head.length >= 4 && Arrays.equals(head, 0, 4, PARQUET_MAGIC, 0, 4)) {
            return Sniffed.not("Parquet file outside an nsys Parquet export directory (one holding StringIds.parquet,"
                    + " CUPTI_ACTIVITY_KIND_*.parquet...)");
        }
        String notKineto = sniff(p);
        return notKineto == null ? Sniffed.is(TraceFormat.KINETO) : Sniffed.not(notKineto);
    }

    /**
     * Null when the Arrow IPC stream's first message is a schema naming an nsys table, else why not.
     * Only the first message's header is read.
     */
    private static String arrowStreamTable(Path p) throws IOException {
        try (InputStream in = Files.newInputStream(p)) {
            byte[] prefix = in.readNBytes(8);
            int length = ByteBuffer.wrap(prefix, 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
            if (length <= 0 || length > (64 << 20)) {
                return "not an Arrow IPC stream (bad message length " + length + " after the continuation marker)";
            }
            byte[] meta = in.readNBytes(length);
            if (meta.length < length) {
                return "Arrow IPC stream cut short in its first message";
            }
            try {
                org.apache.arrow.flatbuf.Message m = org.apache.arrow.flatbuf.Message.getRootAsMessage(
                        ByteBuffer.wrap(meta).order(ByteOrder.LITTLE_ENDIAN));
                if (m.headerType() != org.apache.arrow.flatbuf.MessageHeader.Schema) {
                    return "Arrow IPC stream that does not start with a schema";
                }
                org.apache.arrow.flatbuf.Schema schema = (org.apache.arrow.flatbuf.Schema) m.header(
                        new org.apache.arrow.flatbuf.Schema());
                for (int i = 0; i < schema.customMetadataLength(); i++) {
                    if (ArrowStreamSource.TABLE_NAME_KEY.equals(schema.customMetadata(i).key())) {
                        return null;
                    }
                }
                return "Arrow IPC stream without '" + ArrowStreamSource.TABLE_NAME_KEY
                        + "' schema metadata (not an Nsight Systems export)";
            } catch (RuntimeException e) {
                return "not an Arrow IPC stream (unreadable first message)";
            }
        }
    }

    private static boolean startsWith(Path p, byte[] magic) throws IOException {
        try (InputStream in = Files.newInputStream(p)) {
            return Arrays.equals(in.readNBytes(magic.length), magic);
        }
    }

    /** Null when the file looks like a Kineto trace, else why it is not one. */
    static String sniff(Path p) throws IOException {
        if (Files.size(p) == 0) {
            return "empty file";
        }
        if (isGzip(p)) {
            try (InputStream in = TraceInput.gunzip(p)) {
                return jsonStart(in, "gzip file whose content is not JSON");
            } catch (InputDamage e) {
                // Nothing before the damage tells that this was a trace.
                return "gzip file damaged before any content: " + e.getMessage();
            }
        }
        try (InputStream in = Files.newInputStream(p)) {
            return jsonStart(in, "not JSON (and not gzip)");
        }
    }

    private static String jsonStart(InputStream in, String otherwise) throws IOException {
        int c;
        int read = 0;
        do {
            c = in.read();
            read++;
        } while (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0xEF || c == 0xBB || c == 0xBF);
        if (c < 0 && read == 1) {
            return "empty file";
        }
        return c == '{' || c == '[' ? null : otherwise;
    }
}
