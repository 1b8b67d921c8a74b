package dev.steptrace.ingest.kineto;

import dev.steptrace.common.OutputFiles;
import dev.steptrace.ingest.FileHead;
import dev.steptrace.ingest.FileSummary;
import dev.steptrace.ingest.ImportJob;
import dev.steptrace.ingest.Importer;
import dev.steptrace.ingest.InputDamage;
import dev.steptrace.ingest.Recognition;
import dev.steptrace.ingest.TraceDiscovery;
import dev.steptrace.ingest.TraceInput;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Kineto's {@code *.pt.trace.json[.gz]}: JSON (plain or gzip) that starts with an object or array,
 * streamed through {@link KinetoReader} into {@link KinetoStoreWriter}. It has something to say about
 * any file (not JSON, empty, a damaged gzip), so it is asked last.
 */
public final class KinetoImporter implements Importer {
    public static final String FORMAT = "kineto";
    /** The name of the thread that inserts a file's full batches while the next is parsed. */
    public static final String INSERT_THREAD = "steptrace-insert";
    /** The names of the threads that scan a file's event list beside the reader ({@link ParallelScan}). */
    public static final String SCAN_THREAD = ParallelScan.THREAD;

    @Override
    public String family() {
        return FORMAT;
    }

    @Override
    public List<String> formats() {
        return List.of(FORMAT);
    }

    @Override
    public Set<Capability> capabilities() {
        return Set.of(Capability.CONTENT_FINGERPRINT, Capability.FINGERPRINT_WHILE_READING, Capability.PYTHON_FUNCTIONS);
    }

    @Override
    public Recognition recognize(FileHead file) throws IOException {
        String notKineto = sniff(file);
        return notKineto == null ? Recognition.claim(FORMAT, isGzip(file)) : Recognition.refuse(notKineto);
    }

    /**
     * Streams the trace up to {@code job.stop()} when not null. With a core to spare, full batches go
     * into DuckDB on a second thread while the next is parsed.
     */
    @Override
    public FileSummary read(ImportJob job) throws IOException, SQLException {
        TraceDiscovery.Found f = job.file();
        ExecutorService inserter = job.threads().helpers() ? Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, INSERT_THREAD);
            t.setDaemon(true);
            return t;
        }) : null;
        try (InputStream in = TraceInput.open(f.path(), f.compressed(), job.threads().readAheadBytes(), job.fileBytesRead(),
                job.jsonBytesRead(), job.digest(), job.stop());
             KinetoStoreWriter writer = new KinetoStoreWriter(job.sink(KinetoStoreWriter.BATCH_ROWS, inserter),
                     job.eventsRead())) {
            // A file of one chunk or less is scanned on this thread alone.
            int scanThreads = job.size() > ParallelScan.CHUNK_BYTES ? job.threads().scanThreads() : 1;
            ReadResult r = new KinetoReader(job.options().keepPythonFunctions(), scanThreads)
                    .read(in, writer.names(), writer);
            KinetoStoreWriter.Summary w = writer.finish();
            FileSummary s = new FileSummary();
            s.bytesRead = r.jsonBytes;
            if (r.rereadUpTo() >= 0) {
                s.reread = new TraceInput.Stop(r.rereadUpTo(), r.rereadReason());
            }
            s.partial = r.partial();
            if (r.partial()) {
                s.partialReason = r.damageReason();
                if (f.compressed()) {
                    // Offsets count decompressed bytes: a reader looking in the .gz file itself would be lost.
                    s.partialReason += " of the decompressed JSON";
                }
                s.damageOffset = r.damageOffset();
            }
            if (w.distributedRank() != null) {
                s.rank = w.distributedRank();
                s.rankSource = "distributed_info";
            }
            s.worldSize = w.worldSize();
            s.hostName = w.hostName();
            s.baseTimeNs = w.baseTimeNs();
            s.firstTsNs = w.firstTsNs();
            s.lastTsNs = w.lastTsNs();
            s.kernels = r.kept(EventKind.KERNEL);
            s.memcpys = r.kept(EventKind.MEMCPY);
            s.memsets = r.kept(EventKind.MEMSET);
            s.syncs = r.kept(EventKind.SYNC);
            s.runtime = r.kept(EventKind.RUNTIME) + r.kept(EventKind.DRIVER);
            s.cpuOps = r.kept(EventKind.CPU_OP);
            s.annotations = r.kept(EventKind.USER_ANNOTATION) + r.kept(EventKind.GPU_USER_ANNOTATION);
            s.python = r.kept(EventKind.PYTHON_FUNCTION);
            s.commRows = w.commRows();
            s.dropped = r.droppedTotal();
            s.anomalies.putAll(r.anomalies());
            s.anomaly("bytes_skipped", r.skippedBytes());
            s.distributedInfo = w.distributedInfo();
            s.metadata = w.metadata();
            return s;
        } finally {
            if (inserter != null) {
                inserter.shutdownNow();
            }
        }
    }

    private static boolean isGzip(FileHead file) {
        return file.startsWith(new byte[] {0x1f, (byte) 0x8b});
    }

    /** Null when the file looks like a Kineto trace, else why it is not one. */
    /** How a timeline's metadata starts, within its first bytes. */
    private static final String TIMELINE_MARK = "\"steptrace\":{\"schema\":\"" + OutputFiles.TIMELINE_SCHEMA + "\"";
    private static final int TIMELINE_MARK_WITHIN = 200;

    private static String sniff(FileHead file) throws IOException {
        if (file.bytes().length == 0) {
            return "empty file";
        }
        if (isGzip(file)) {
            try (InputStream in = TraceInput.gunzip(file.path())) {
                return jsonStart(in, "gzip file whose content is not JSON", file.given());
            } catch (InputDamage e) {
                // Nothing before the damage tells that this was a trace.
                return "gzip file damaged before any content: " + e.getMessage();
            }
        }
        try (InputStream in = Files.newInputStream(file.path())) {
            return jsonStart(in, "not JSON (and not gzip)", file.given());
        }
    }

    private static String jsonStart(InputStream in, String otherwise, boolean given) throws IOException {
        int c;
        int read = 0;
        do {
            c = in.read();
            read++;
        } while (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0xEF || c == 0xBB || c == 0xBF);
        if (c < 0 && read == 1) {
            return "empty file";
        }
        if (c != '{' && c != '[') {
            return otherwise;
        }
        // A timeline steptrace wrote (Kineto-shaped, its metadata first) is read back when named itself, never
        // when met in a directory: report . would take the timelines of its last run for a capture.
        String start = new String(in.readNBytes(TIMELINE_MARK_WITHIN), StandardCharsets.UTF_8);
        return !given && start.contains(TIMELINE_MARK) ? "a timeline steptrace wrote, not a trace (give the file"
                + " itself to read it back)" : null;
    }
}
