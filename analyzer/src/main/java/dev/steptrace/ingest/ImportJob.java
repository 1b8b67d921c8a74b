package dev.steptrace.ingest;

import dev.steptrace.store.TableColumns;
import java.sql.Connection;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;

/**
 * One file to read, and what its importer reads it with: the file's transaction (connection), its
 * {@code file_id}, the ingest's options and progress counters.
 *
 * @param size          the trace's bytes on disk (all its parts)
 * @param tables        the store's table columns, read once for the whole ingest
 * @param threads       the threads its load may use beside its own
 * @param stop          where to stop reading (a re-read up to damage), or null
 * @param eventsRead    events read by the whole ingest, for progress
 * @param fileBytesRead file bytes read by the whole ingest, for progress
 * @param jsonBytesRead uncompressed bytes read by the whole ingest, for progress (MB/s of JSON)
 * @param digest        where the trace's fingerprint is taken as it is read (an importer that can,
 *                      {@link Importer.Capability#FINGERPRINT_WHILE_READING}), or null (fingerprinted before)
 */
public record ImportJob(TraceDiscovery.Found file, long size, int fileId, Connection connection,
                        BufferAllocator allocator, TableColumns.Cache tables, IngestOptions options, FileThreads threads,
                        TraceInput.Stop stop,
                        AtomicLong eventsRead, AtomicLong fileBytesRead, AtomicLong jsonBytesRead,
                        Fingerprint.Digest digest) {
    /** The sink for this file's rows, with {@code batchRows} rows per batch, inserting on {@code inserter} (or inline). */
    public RowSink sink(int batchRows, ExecutorService inserter) {
        return new RowSink(connection, allocator, tables, fileId, batchRows, inserter);
    }
}
