package dev.steptrace.api;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of a running ingest, kept up to date by the ingest's threads (read them from any thread).
 *
 * @param bytesRead     file bytes read so far (compressed bytes for gzip files)
 * @param bytesToRead   file bytes the ingest will read: 0 until the files are planned
 * @param jsonBytesRead the bytes read so far once decompressed (the same as {@code bytesRead} for plain files)
 * @param events        trace events read so far
 */
public record IngestProgress(AtomicLong bytesRead, AtomicLong bytesToRead, AtomicLong jsonBytesRead,
                             AtomicLong events) {}
