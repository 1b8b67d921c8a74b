package dev.steptrace.ingest;

/**
 * @param threads              files loaded at once (default: the machine's cores)
 * @param keepPythonFunctions  keep {@code python_function} events (dropped by default: no analysis uses them)
 * @param helperThreads        when there are fewer files than cores, give a file helper threads: its inserts into
 *                             DuckDB, and its read (or gunzip) ahead of the parser
 */
public record IngestOptions(int threads, boolean keepPythonFunctions, boolean helperThreads) {
    public static IngestOptions defaults() {
        return new IngestOptions(Runtime.getRuntime().availableProcessors(), false, true);
    }
}
