package dev.steptrace.ingest.nsys;

import dev.steptrace.ingest.FileHead;
import dev.steptrace.ingest.FileSummary;
import dev.steptrace.ingest.ImportJob;
import dev.steptrace.ingest.Importer;
import dev.steptrace.ingest.NotATraceException;
import dev.steptrace.ingest.Recognition;
import dev.steptrace.ingest.RowSink;
import dev.steptrace.ingest.TraceDiscovery;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Nsight Systems exports ({@code nsys export}), whatever the container:
 * <ul>
 *   <li>{@code --type sqlite}: an SQLite database holding nsys tables ({@link NsysExports});</li>
 *   <li>{@code --type arrow}: an Arrow IPC stream (continuation marker {@code 0xFFFFFFFF}) whose first
 *       schema names its table in the metadata key {@code table_name};</li>
 *   <li>{@code --type parquetdir}: a directory holding nsys tables as {@code <TABLE>.parquet}
 *       ({@code StringIds}, {@code CUPTI_ACTIVITY_KIND_*}, {@code NVTX_EVENTS}, {@code TARGET_INFO_*},
 *       {@code META_DATA_*}) in Parquet files (magic {@code PAR1}); the directory is one trace.</li>
 * </ul>
 * Read by {@link NsysReader}; docs/formats.md has the mapping.
 */
public final class NsysImporter implements Importer {
    public static final String SQLITE = "nsys-sqlite";
    public static final String PARQUET = "nsys-parquet";
    public static final String ARROW = "nsys-arrow";

    private static final byte[] SQLITE_MAGIC = SqliteSource.SQLITE_MAGIC;
    private static final byte[] PARQUET_MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ARROW_STREAM_MARKER = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
    /** File names of nsys export tables: what makes a directory of Parquet files an nsys export. */
    private static final Pattern NSYS_TABLE = Pattern.compile(
            "(StringIds|CUPTI_ACTIVITY_KIND_\\w+|NVTX_EVENTS|TARGET_INFO_\\w+|META_DATA_\\w+|ThreadNames|PROCESSES"
                    + "|MPI_RANKS)\\.parquet");

    @Override
    public String family() {
        return "nsys";
    }

    @Override
    public List<String> formats() {
        return List.of(SQLITE, PARQUET, ARROW);
    }

    @Override
    public Set<Capability> capabilities() {
        return Set.of(Capability.WHOLE_GRAPH_ROWS);
    }

    @Override
    public Recognition recognize(FileHead file) throws IOException {
        String beside = SqliteSource.besideDatabase(file.path());
        if (beside != null) {
            return Recognition.refuse(beside);
        }
        if (file.startsWith(SQLITE_MAGIC)) {
            String pending = SqliteSource.pendingChanges(file.path());
            if (pending != null) {
                return Recognition.refuse(pending);
            }
            // Other tools write SQLite too (rocprofv3's rocpd): the tables decide.
            try (SqliteSource src = SqliteSource.open(file.path())) {
                String notNsys = NsysExports.notAnExport(src);
                return notNsys == null ? Recognition.claim(SQLITE) : Recognition.refuse(notNsys);
            }
        }
        if (file.bytes().length >= 8 && file.startsWith(ARROW_STREAM_MARKER)) {
            String notNsys = arrowStreamTable(file.path());
            return notNsys == null ? Recognition.claim(ARROW) : Recognition.refuse(notNsys);
        }
        if (file.startsWith("ARROW1")) {
            return Recognition.refuse("Arrow IPC file format (nsys --type arrowdir is not read; export with --type arrow,"
                    + " parquetdir or sqlite)");
        }
        if (file.startsWith(PARQUET_MAGIC)) {
            return Recognition.refuse("Parquet file outside an nsys Parquet export directory (one holding"
                    + " StringIds.parquet, CUPTI_ACTIVITY_KIND_*.parquet...)");
        }
        return null;
    }

    /** A directory that {@code nsys export --type parquetdir} wrote: it holds Parquet files named after nsys tables. */
    @Override
    public Recognition recognizeDirectory(Path dir) throws IOException {
        Path sample = null;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "*.parquet")) {
            for (Path p : entries) {
                if (NSYS_TABLE.matcher(p.getFileName().toString()).matches() && Files.isRegularFile(p)) {
                    sample = p;
                    break;
                }
            }
        }
        return sample != null && FileHead.read(sample).startsWith(PARQUET_MAGIC) ? Recognition.claim(PARQUET) : null;
    }

    /** A Parquet export's Parquet files, sorted; any other export is its one file. */
    @Override
    public List<Path> parts(Path trace) throws IOException {
        if (!Files.isDirectory(trace)) {
            return List.of(trace);
        }
        TreeSet<Path> files = new TreeSet<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(trace, "*.parquet")) {
            for (Path p : entries) {
                if (Files.isRegularFile(p)) {
                    files.add(p);
                }
            }
        }
        return new ArrayList<>(files);
    }

    /** Reads the export table by table; batches are inserted on a second thread while the next one is read. */
    @Override
    public FileSummary read(ImportJob job) throws IOException, SQLException {
        try (NsysSource src = open(job.file(), job.allocator())) {
            String notNsys = NsysExports.notAnExport(src);
            if (notNsys != null) {
                throw new NotATraceException(notNsys, -1);
            }
            ExecutorService inserter = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "steptrace-nsys-insert");
                t.setDaemon(true);
                return t;
            });
            try (RowSink sink = job.sink(NsysReader.BATCH_ROWS, inserter)) {
                FileSummary s = new NsysReader(src, sink, job.eventsRead()).read(job.size());
                job.fileBytesRead().addAndGet(job.size());
                job.jsonBytesRead().addAndGet(job.size());
                return s;
            } finally {
                inserter.shutdownNow();
            }
        }
    }

    /** The export's tables, whatever its container. */
    public static NsysSource open(TraceDiscovery.Found f, BufferAllocator allocator) throws IOException {
        switch (f.format()) {
            case SQLITE:
                return SqliteSource.open(f.path());
            case PARQUET:
                return ParquetDirSource.open(f.path(), allocator);
            case ARROW:
                return ArrowStreamSource.open(f.path(), allocator);
            default:
                throw new IllegalArgumentException("not an nsys format: " + f.format());
        }
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
}
