package dev.steptrace.ingest;

/**
 * @param threads              files loaded at once (default: the machine's cores)
 * @param keepPythonFunctions  keep every {@code python_function} event (by default only the nn.Module ranges of
 *                             {@code with_modules=True} are kept)
 * @param helperThreads        when fewer files than cores keep a thread busy ({@link Ingestor#busyFiles}), give a
 *                             file helper threads: its inserts into DuckDB, and its read (or gunzip) ahead of the
 *                             parser
 * @param scanThreads          threads that scan one file's event list with helper threads (0: as
 *                             {@link Ingestor#scanThreads} chooses from the cores and the files at once)
 */
public record IngestOptions(int threads, boolean keepPythonFunctions, boolean helperThreads, int scanThreads) {
    public IngestOptions(int threads, boolean keepPythonFunctions, boolean helperThreads) {
        this(threads, keepPythonFunctions, helperThreads, 0);
    }

    public static IngestOptions defaults() {
        return new IngestOptions(Runtime.getRuntime().availableProcessors(), false, true);
    }
}
