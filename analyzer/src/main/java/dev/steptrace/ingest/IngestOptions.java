package dev.steptrace.ingest;

/**
 * @param threads              files loaded at once (default: the machine's cores)
 * @param keepPythonFunctions  keep {@code python_function} events (dropped by default: no analysis uses them)
 * @param inflateAhead         decompress gzip on a second thread when there are fewer files than cores
 */
public record IngestOptions(int threads, boolean keepPythonFunctions, boolean inflateAhead) {
    public static IngestOptions defaults() {
        return new IngestOptions(Runtime.getRuntime().availableProcessors(), false, true);
    }
}
