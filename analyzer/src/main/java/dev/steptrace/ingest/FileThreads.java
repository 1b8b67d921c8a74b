package dev.steptrace.ingest;

/**
 * The threads a file's load may use beside its own, decided once per ingest from the cores, the files loading at
 * once and the heap ({@link Ingestor}).
 *
 * @param helpers        a core is free for helper threads beside the reader: inserts on a thread of their own
 * @param scanThreads    threads the reader may parse this one file on (1: its own only)
 * @param readAheadBytes bytes queued read (or gunzipped) ahead of the reader on a thread of its own
 *                       ({@link ReadAhead}); 0 for none
 */
public record FileThreads(boolean helpers, int scanThreads, int readAheadBytes) {}
