package dev.steptrace.bench;

import com.fasterxml.jackson.core.JsonParser;
import dev.steptrace.api.Steptrace;
import dev.steptrace.ingest.Fingerprint;
import dev.steptrace.ingest.IngestOptions;
import dev.steptrace.ingest.IngestReport;
import dev.steptrace.ingest.Ingestor;
import dev.steptrace.ingest.TraceDiscovery;
import dev.steptrace.ingest.TraceInput;
import dev.steptrace.ingest.NotATraceException;
import dev.steptrace.ingest.kineto.KinetoImporter;
import dev.steptrace.ingest.kineto.KinetoReader;
import dev.steptrace.ingest.kineto.NameDictionary;
import dev.steptrace.ingest.kineto.TraceEvent;
import dev.steptrace.ingest.kineto.TraceEventSink;
import dev.steptrace.ingest.nsys.ArrowStreamSource;
import dev.steptrace.ingest.nsys.NsysImporter;
import dev.steptrace.ingest.nsys.NsysReader;
import dev.steptrace.ingest.nsys.NsysSource;
import dev.steptrace.ingest.nsys.ParquetDirSource;
import dev.steptrace.ingest.nsys.Rows;
import dev.steptrace.ingest.nsys.SqliteSource;
import dev.steptrace.store.Store;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Ingest throughput beside its ceiling, in one process: a bare Jackson tokenizer pass over the same
 * (decompressed) bytes, the reader alone (events read, nothing stored), then full ingests into fresh
 * stores with 1 thread and with N threads. Reports
 * MB/s of uncompressed JSON per wall second and per CPU second, events/s, and the process's peak RSS.
 * For Nsight Systems exports the ceiling is a bare scan of the kernel tables, and the figures are
 * rows/s and kernel rows/s.
 */
public final class IngestBenchmark {
    private final PrintWriter out;

    public IngestBenchmark(PrintWriter out) {
        this.out = out;
    }

    /**
     * One measured pass.
     *
     * @param detail    a line under the pass: how the CPU of an ingest's own threads divides, or how much the
     *                  scan threads were given; or null
     * @param analysis  the analysis after the ingest, timed and set against the load, or null
     */
    public record Pass(String what, long jsonBytes, long items, String itemName, double wallSeconds,
                       double cpuSeconds, String detail, String analysis) {
        double mbPerSecond() {
            return jsonBytes / 1e6 / wallSeconds;
        }

        double mbPerCpuSecond() {
            return jsonBytes / 1e6 / cpuSeconds;
        }
    }

    public void run(List<Path> inputs, int threads, int repeat, Path workDir) throws Exception {
        List<TraceDiscovery.Found> found = TraceDiscovery.discover(inputs, Set.of()).traces();
        List<TraceDiscovery.Found> nsys = found.stream().filter(f -> f.importer() instanceof NsysImporter).toList();
        List<TraceDiscovery.Found> files = found.stream().filter(f -> f.importer() instanceof KinetoImporter).toList();
        if (files.isEmpty() && nsys.isEmpty()) {
            throw new IllegalArgumentException("no Kineto traces or Nsight Systems exports in " + inputs);
        }
        if (!nsys.isEmpty()) {
            if (nsys.size() < found.size()) {
                out.printf(Locale.ROOT, "measuring the %d Nsight Systems export(s); %d other file(s) left out (measure"
                        + " Kineto traces on their own)%n", nsys.size(), found.size() - nsys.size());
            }
            runNsys(nsys, nsys.stream().map(TraceDiscovery.Found::path).toList(), threads, repeat, workDir);
            return;
        }
        long onDisk = files.stream().mapToLong(f -> size(f.path())).sum();
        out.printf(Locale.ROOT, "input: %d file(s), %.1f MB on disk (%s)%n", files.size(), onDisk / 1e6,
                files.stream().allMatch(TraceDiscovery.Found::compressed) ? "gzip" : "plain or mixed");
        printJvm();
        int cores = Runtime.getRuntime().availableProcessors();
        // A file as small as a run directory's config or a synth output's EXPECTED.json loads within the large
        // one's load: ingest gives the large one its helper threads (Ingestor.busyFiles), so the bench measures
        // the one-file passes too.
        List<Long> sizes = files.stream().map(f -> size(f.path())).sorted(Comparator.reverseOrder()).toList();
        boolean oneFile = Ingestor.busyFiles(sizes, files.size()) == 1;
        if (oneFile && files.size() > 1) {
            out.printf(Locale.ROOT, "measured as one file: %d smaller file%s beside it, under a quarter of its size%n",
                    files.size() - 1, files.size() > 2 ? "s" : "");
        }
        for (int r = 1; r <= repeat; r++) {
            out.printf(Locale.ROOT, "-- round %d of %d%n", r, repeat);
            print(tokenize(files));
            print(parse(files, 1));
            if (oneFile && cores > 1) {
                // How the scan of one file's event list scales with the cores, with no store beside it.
                print(parse(files, cores));
            }
            // The analysis that `steptrace ingest` runs after the load is timed after the round's last pass,
            // the one loaded as that command loads.
            boolean parallel = threads > 1 && !oneFile;
            print(ingest(inputs, 1, null, workDir, !oneFile && !parallel));
            if (oneFile) {
                // What `steptrace ingest` does with one file: inserts, the read (or gunzip) and, with cores to
                // spare, the scan of the event list on threads of their own.
                int scan = Ingestor.scanThreads(cores, 1, new IngestOptions(1, false, true));
                print(ingest(inputs, 1, (largest(files).compressed() ? "insert, gunzip" : "insert, read") + " threads"
                        + (scan > 1 ? ", " + scan + " scan threads" : ""), workDir, true));
            }
            if (parallel) {
                print(ingest(inputs, threads, null, workDir, true));
            }
        }
        out.printf(Locale.ROOT, "peak RSS: %d MB (VmHWM of this process)%n", peakRssKb() / 1024);
        out.flush();
    }

    private void printJvm() {
        out.printf(Locale.ROOT, "jvm: %s, max heap %d MB, %d cores%n", System.getProperty("java.vm.version"),
                Runtime.getRuntime().maxMemory() >> 20, Runtime.getRuntime().availableProcessors());
    }

    private void print(Pass p) {
        out.printf(Locale.ROOT, "%-46s %7.1f MB/s %7.1f MB/s per CPU-s %6.2f M %s/s  (%.0f MB JSON in %.2f s)%n",
                p.what(), p.mbPerSecond(), p.mbPerCpuSecond(), p.items() / 1e6 / p.wallSeconds(), p.itemName(),
                p.jsonBytes() / 1e6, p.wallSeconds());
        if (p.detail() != null) {
            out.printf(Locale.ROOT, "    %s%n", p.detail());
        }
        if (p.analysis() != null) {
            out.printf(Locale.ROOT, "    %s%n", p.analysis());
        }
        out.flush();
    }

    /** The ceiling: decompress and tokenize every file, one thread, touching no token. */
    Pass tokenize(List<TraceDiscovery.Found> files) throws IOException {
        Stopwatch watch = new Stopwatch();
        long bytes = 0;
        long tokens = 0;
        for (TraceDiscovery.Found f : files) {
            AtomicLong ignored = new AtomicLong();
            // Buffered like the reader's own input (128 KiB reads): the ceiling is the tokenizer, not syscalls.
            try (InputStream in = new java.io.BufferedInputStream(
                         TraceInput.open(f.path(), f.compressed(), 0, ignored, null, null, null), 1 << 17);
                 CountingStream counted = new CountingStream(in);
                 JsonParser p = KinetoReader.jsonFactory().createParser(counted)) {
                while (p.nextToken() != null) {
                    tokens++;
                }
                bytes += counted.count;
            }
        }
        return new Pass("tokenizer only (ceiling), 1 thread", bytes, tokens, "tokens", watch.wallSeconds(),
                watch.cpuSeconds(), null, null);
    }

    /**
     * The reader alone: decompress and read every file's events (the scanner, and Jackson for the
     * document around the list), storing nothing: what ingest costs before the store. With {@code scanThreads}
     * over 1 the event list is scanned on that many threads besides the file's, as ingest does when cores are free.
     */
    Pass parse(List<TraceDiscovery.Found> files, int scanThreads) throws IOException {
        Stopwatch watch = new Stopwatch();
        long bytes = 0;
        long events = 0;
        KinetoReader reader = new KinetoReader(false, scanThreads);
        for (TraceDiscovery.Found f : files) {
            Counted sink = new Counted();
            try (InputStream in = TraceInput.open(f.path(), f.compressed(), 0, new AtomicLong(), null, null, null)) {
                bytes += reader.read(in, new NameDictionary(), sink).jsonBytes;
            } catch (NotATraceException e) {
                continue;
            }
            events += sink.events;
        }
        // Chunks dropped after the scan stopped short are scanned for nothing: this shows how many there were.
        String scanned = scanThreads == 1 ? null : String.format(Locale.ROOT,
                "the scan threads were given %.2fx the JSON read", reader.bytesScannedInParallel() / (double) bytes);
        return new Pass("read events, no store (parse only), " + (scanThreads == 1 ? "1 thread"
                : "+ " + scanThreads + " scan threads"), bytes, events, "kept events",
                watch.wallSeconds(), watch.cpuSeconds(), scanned, null);
    }

    /** Counts the kept events, keeps nothing. */
    private static final class Counted implements TraceEventSink {
        long events;

        @Override
        public void event(TraceEvent event) {
            events++;
        }
    }

    /**
     * @param helpers the threads beside the file threads, for the label; null: none (no helper threads)
     * @param analyse also run the analysis that {@code steptrace ingest} runs after the load
     */
    Pass ingest(List<Path> inputs, int threads, String helpers, Path workDir, boolean analyse) throws Exception {
        ThreadCpu threadCpu = new ThreadCpu();
        Ingested i;
        try (threadCpu) {
            i = ingested(inputs, new IngestOptions(threads, false, helpers != null), workDir, analyse);
        }
        long json = i.report().files().stream().mapToLong(f -> f.jsonBytes()).sum();
        Timed a = i.analysis();
        return new Pass("ingest, " + threads + " file thread" + (threads > 1 ? "s" : "")
                + (helpers != null ? " + " + helpers : ""), json, i.events(), "kept events", i.wallSeconds(),
                i.cpuSeconds(), threadCpu.summary(), a == null ? null : String.format(Locale.ROOT,
                        "then the analysis, as `steptrace ingest` runs it: %.2f s (%.2f CPU-s), %.2fx the load's time",
                        a.wallSeconds(), a.cpuSeconds(), a.wallSeconds() / i.wallSeconds()));
    }

    /**
     * CPU seconds of an ingest's own threads by what they do (files parsed, inserts, reading ahead), sampled
     * every 10 ms while a pass runs, so a thread's last 10 ms may be missed. With the insert thread the
     * parsing thread is the critical path: its CPU is the figure that says what a second core can give.
     * Only what a thread spends during the pass counts: a thread of an earlier pass still ending (a scan
     * worker is shut down, not waited for) is counted from the CPU it had when this pass began.
     */
    static final class ThreadCpu implements AutoCloseable {
        private static final List<String> PREFIXES = List.of(Ingestor.FILE_THREAD, KinetoImporter.INSERT_THREAD,
                TraceInput.READ_THREAD, TraceInput.GUNZIP_THREAD, KinetoImporter.SCAN_THREAD);
        private static final List<String> ROLES = List.of("file threads", "insert", "read ahead", "gunzip ahead", "scan");
        private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        /** The most CPU seen of each thread, by thread id, and what it does. */
        private final Map<Long, long[]> seen = new HashMap<>();
        /** The CPU each thread alive when the pass began had then, by thread id. */
        private final Map<Long, Long> before = new HashMap<>();
        private final Thread sampler = new Thread(this::sampleEvery10Ms, "steptrace-bench-threads");

        ThreadCpu() {
            for (long id : threads.getAllThreadIds()) {
                long ns = threads.getThreadCpuTime(id);
                if (ns > 0) {
                    before.put(id, ns);
                }
            }
            sampler.setDaemon(true);
            sampler.start();
        }

        private void sampleEvery10Ms() {
            try {
                while (true) {
                    sample();
                    Thread.sleep(10);
                }
            } catch (InterruptedException e) {
                // the pass is over
            }
        }

        private synchronized void sample() {
            for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
                int role = t == null ? -1 : role(t.getThreadName());
                long ns = role < 0 ? -1 : threads.getThreadCpuTime(t.getThreadId());
                if (ns > 0) {
                    long[] s = seen.computeIfAbsent(t.getThreadId(), id -> new long[] {role, 0});
                    s[1] = Math.max(s[1], ns);
                }
            }
        }

        private static int role(String threadName) {
            for (int r = 0; r < PREFIXES.size(); r++) {
                if (threadName.startsWith(PREFIXES.get(r))) {
                    return r;
                }
            }
            return -1;
        }

        @Override
        public void close() throws InterruptedException {
            sampler.interrupt();
            sampler.join();
        }

        /** For example "thread CPU: file threads 1.71 s, insert 1.29 s, read ahead 0.25 s"; null when not measured. */
        synchronized String summary() {
            double[] seconds = new double[ROLES.size()];
            seen.forEach((id, s) -> seconds[(int) s[0]] += (s[1] - before.getOrDefault(id, 0L)) / 1e9);
            List<String> parts = new ArrayList<>();
            for (int r = 0; r < seconds.length; r++) {
                if (seconds[r] >= 0.005) {
                    parts.add(String.format(Locale.ROOT, "%s %.2f s", ROLES.get(r), seconds[r]));
                }
            }
            return parts.isEmpty() ? null : "thread CPU: " + String.join(", ", parts);
        }
    }

    /** A full ingest into a fresh store (deleted after), timed; the analysis after it when asked, timed apart. */
    private record Ingested(IngestReport report, long events, double wallSeconds, double cpuSeconds, Timed analysis) {}

    private record Timed(double wallSeconds, double cpuSeconds) {}

    private static Ingested ingested(List<Path> inputs, IngestOptions options, Path workDir, boolean analyse)
            throws Exception {
        Path db = Files.createTempFile(workDir, "bench-", ".duckdb");
        Files.delete(db);
        try (Store store = Store.open(db)) {
            Ingestor ingestor = new Ingestor(store, options);
            Stopwatch watch = new Stopwatch();
            IngestReport report = ingestor.ingest(inputs);
            double wall = watch.wallSeconds();
            double cpu = watch.cpuSeconds();
            Timed analysis = null;
            if (analyse) {
                Stopwatch a = new Stopwatch();
                try (Steptrace st = Steptrace.of(store)) {
                    st.prepareReports(report);
                }
                analysis = new Timed(a.wallSeconds(), a.cpuSeconds());
            }
            return new Ingested(report, ingestor.eventsRead().get(), wall, cpu, analysis);
        } finally {
            deleteStore(db);
        }
    }

    /**
     * Nsight Systems exports: a bare scan of the kernel tables (the columns the reader uses, nothing
     * written: the ceiling), then full ingests into fresh stores. Reports rows per second over all
     * tables and kernel rows per second (kernel rows over the whole ingest's wall time), with the
     * export's bytes on disk per second.
     */
    private void runNsys(List<TraceDiscovery.Found> files, List<Path> inputs, int threads, int repeat, Path workDir)
            throws Exception {
        long onDisk = 0;
        for (TraceDiscovery.Found f : files) {
            onDisk += Fingerprint.of(f).size();
        }
        out.printf(Locale.ROOT, "input: %d Nsight Systems export(s), %.1f MB on disk (%s)%n", files.size(), onDisk / 1e6,
                String.join(", ", files.stream().map(TraceDiscovery.Found::format).distinct().toList()));
        printJvm();
        int cores = Runtime.getRuntime().availableProcessors();
        for (int r = 1; r <= repeat; r++) {
            out.printf(Locale.ROOT, "-- round %d of %d%n", r, repeat);
            printRows(scanKernels(files, onDisk));
            printRows(ingestNsys(inputs, 1, workDir));
            if (threads > 1 && files.size() > 1) {
                printRows(ingestNsys(inputs, threads, workDir));
            }
        }
        out.printf(Locale.ROOT, "peak RSS: %d MB (VmHWM of this process)%n", peakRssKb() / 1024);
        out.flush();
    }

    /** One measured nsys pass: rows of all tables and kernel rows. */
    public record RowsPass(String what, long bytes, long rows, long kernelRows, double wallSeconds, double cpuSeconds) {}

    private void printRows(RowsPass p) {
        out.printf(Locale.ROOT, "%-46s %6.2f M rows/s %6.2f M kernel rows/s %6.2f M rows per CPU-s %7.1f MB/s"
                        + "  (%d rows, %d kernels, %.1f CPU-s, in %.2f s)%n", p.what(), p.rows() / 1e6 / p.wallSeconds(),
                p.kernelRows() / 1e6 / p.wallSeconds(), p.rows() / 1e6 / p.cpuSeconds(), p.bytes() / 1e6 / p.wallSeconds(),
                p.rows(), p.kernelRows(), p.cpuSeconds(), p.wallSeconds());
        out.flush();
    }

    /** The ceiling: read every kernel row's columns as the reader does, one thread, writing nothing. */
    RowsPass scanKernels(List<TraceDiscovery.Found> files, long bytes) throws IOException {
        Stopwatch watch = new Stopwatch();
        long rows = 0;
        long sink = 0;
        // The columns NsysReader reads for every kernel row.
        int[] used = NsysReader.KERNEL_HOT;
        try (BufferAllocator allocator = new RootAllocator()) {
            for (TraceDiscovery.Found f : files) {
                try (NsysSource src = NsysImporter.open(f, allocator);
                     Rows r = src.scan("CUPTI_ACTIVITY_KIND_KERNEL", NsysReader.KERNEL_COLUMNS, null)) {
                    while (r.next()) {
                        for (int c : used) {
                            sink += r.getLong(c);
                        }
                        rows++;
                    }
                }
            }
        }
        if (sink == 42) {
            out.print("");
        }
        return new RowsPass("kernel table scan only (ceiling), 1 thread", bytes, rows, rows, watch.wallSeconds(),
                watch.cpuSeconds());
    }

    RowsPass ingestNsys(List<Path> inputs, int threads, Path workDir) throws Exception {
        Ingested i = ingested(inputs, new IngestOptions(threads, false, false), workDir, false);
        long bytes = i.report().files().stream().mapToLong(f -> f.jsonBytes()).sum();
        long kernels = i.report().files().stream().mapToLong(f -> f.counts().getOrDefault("kernel", 0L)).sum();
        return new RowsPass("ingest, " + threads + " file thread" + (threads > 1 ? "s" : ""), bytes, i.events(),
                kernels, i.wallSeconds(), i.cpuSeconds());
    }

    private static void deleteStore(Path db) throws IOException {
        Path dir = db.getParent();
        String prefix = db.getFileName().toString();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.filter(p -> p.getFileName().toString().startsWith(prefix))
                    .sorted(Comparator.reverseOrder()).toList()) {
                if (Files.isDirectory(p)) {
                    try (Stream<Path> tmp = Files.walk(p)) {
                        for (Path q : tmp.sorted(Comparator.reverseOrder()).toList()) {
                            Files.delete(q);
                        }
                    }
                } else {
                    Files.delete(p);
                }
            }
        }
    }

    private static TraceDiscovery.Found largest(List<TraceDiscovery.Found> files) {
        return files.stream().max(Comparator.comparingLong(f -> size(f.path()))).orElseThrow();
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return 0;
        }
    }

    /** Wall and CPU seconds since it was made: the time of one pass. */
    private static final class Stopwatch {
        private final long cpu0 = cpuNanos();
        private final long t0 = System.nanoTime();

        double wallSeconds() {
            return (System.nanoTime() - t0) / 1e9;
        }

        double cpuSeconds() {
            return (cpuNanos() - cpu0) / 1e9;
        }
    }

    /** CPU time of the whole process (all threads, DuckDB's included). */
    static long cpuNanos() {
        var os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return 0;
    }

    /** VmHWM from /proc/self/status: the most resident memory the process ever had. */
    static long peakRssKb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    private static final class CountingStream extends InputStream {
        private final InputStream in;
        long count;

        CountingStream(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
