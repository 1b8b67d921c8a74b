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
 * @param helperThreads a core is free for helper threads (inserts, the read or gunzip ahead) beside the reader
 * @param scanThreads   threads a reader may parse this one file on (1: its own only)
 * @param readAheadBytes bytes queued read (or gunzipped) ahead of the reader on a thread of its own
 *                      ({@link ReadAhead}); 0 for none
 * @param stop          where to stop reading (a re-read up to damage), or null
 * @param eventsRead    events read by the whole ingest, for progress
 * @param fileBytesRead file bytes read by the whole ingest, for progress
 * @param jsonBytesRead uncompressed bytes read by the whole ingest, for progress (MB/s of JSON)
 * @param digest        where a Kineto file's fingerprint is taken as it is read, or null (fingerprinted before)
 */
public record ImportJob(TraceDiscovery.Found file, long size, int fileId, Connection connection,
                        BufferAllocator allocator, TableColumns.Cache tables, IngestOptions options, boolean helperThreads, int scanThreads,
                        int readAheadBytes,
                        TraceInput.Stop stop,
                        AtomicLong eventsRead, AtomicLong fileBytesRead, AtomicLong jsonBytesRead,
                        Fingerprint.Digest digest) {
    /** The sink for this file's rows, with {@code batchRows} rows per batch, inserting on {@code inserter} (or inline). */
    public RowSink sink(int batchRows, ExecutorService inserter) {
        return new RowSink(connection, allocator, tables, fileId, batchRows, inserter);
    }
}
