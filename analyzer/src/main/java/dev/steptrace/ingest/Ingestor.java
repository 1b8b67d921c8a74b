package dev.steptrace.ingest;

import dev.steptrace.common.Messages;
import dev.steptrace.ingest.FileOutcome.Status;
import dev.steptrace.store.Store;
import dev.steptrace.store.NamedRow;
import dev.steptrace.store.StoreFiles;
import dev.steptrace.store.TableColumns;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Loads trace files into the store: one transaction per file (a failed file leaves nothing behind,
 * a changed file's rows are replaced atomically), several files at once on all cores, and unchanged
 * files (same path, size and content hash) skipped without parsing. Then the files of each directory
 * that changed are grouped into captures ({@link CaptureAssignment}).
 */
public final class Ingestor {
    /** Scan threads a file gets at most (see {@link #scanThreads}). */
    static final int MAX_SCAN_THREADS = 4;
    /**
     * Java heap one file's load may take (its batches, twice over with an insert thread, its reader and
     * dictionaries): on the launcher's 512 MB, 16 files of 100 MB loaded at once with their helper threads,
     * 24 ran out of heap (docs/performance.md).
     */
    static final long HEAP_PER_FILE = 32L << 20;
    /** The name of the threads that each read one file at a time into the store. */
    public static final String FILE_THREAD = "steptrace-ingest";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String STORE_ERROR = "store error: ";
    private static final String STORE_READ_ONLY = "not loaded: the store ";
    /** The end of a skipped file's reason when the file was a trace before and its rows went. */
    private static final String STALE_ROWS_REMOVED = "; its rows from an earlier ingest were removed from the store";
    private static final String CHANGED_WHILE_READ = "changed while it was read (still being written or copied?):"
            + " not loaded; ingest it again once it is complete";

    private final Store store;
    private final IngestOptions options;
    private final AtomicLong fileBytesRead = new AtomicLong();
    private final AtomicLong jsonBytesRead = new AtomicLong();
    private final AtomicLong eventsRead = new AtomicLong();
    private final AtomicLong fileBytesToRead = new AtomicLong();
    private final TableColumns.Cache tables = new TableColumns.Cache();
    /**
     * Runs on a file's thread as its load begins, before it is read: tests change files there, between
     * planning and the load, which nothing else can time.
     */
    Consumer<Path> beforeLoad = path -> { };

    public Ingestor(Store store, IngestOptions options) {
        this.store = store;
        this.options = options;
    }

    /** File bytes read so far by the running ingest (compressed bytes for gzip files), for progress. */
    public AtomicLong fileBytesRead() {
        return fileBytesRead;
    }

    /** The bytes read so far by the running ingest once decompressed, for progress (MB/s of JSON). */
    public AtomicLong jsonBytesRead() {
        return jsonBytesRead;
    }

    /** File bytes the running ingest will read, once it has planned (0 before), for progress. */
    public AtomicLong fileBytesToRead() {
        return fileBytesToRead;
    }

    /** Events read so far by the running ingest, for progress. */
    public AtomicLong eventsRead() {
        return eventsRead;
    }

    public IngestReport ingest(List<Path> inputs) throws IOException, SQLException {
        TraceDiscovery.Result found = TraceDiscovery.discover(inputs, Set.of(store.path()));
        List<FileOutcome> outcomes = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (TraceDiscovery.Skipped s : found.skipped()) {
            // A file that cannot be read now keeps the rows of its last ingest: it may well be unchanged.
            outcomes.add(FileOutcome.notLoaded(s.path(), s.failed() ? Status.FAILED : Status.SKIPPED,
                    s.failed() ? s.reason() : s.reason() + removeStaleRows(store.connection(), s.path())));
        }
        for (Path gone : goneFrom(inputs, found)) {
            outcomes.add(FileOutcome.notLoaded(gone, Status.SKIPPED,
                    "no longer on disk" + removeStaleRows(store.connection(), gone)));
        }
        List<Planned> plan = new IngestPlanner(store, options).plan(found.traces(), outcomes);
        List<Planned> toLoad = plan.stream().filter(p -> !p.unchanged && p.copy == null).toList();
        fileBytesToRead.set(toLoad.stream().mapToLong(p -> p.fingerprint.size()).sum());
        List<FileOutcome> loaded = load(toLoad);
        outcomes.addAll(loaded);
        outcomes.addAll(copyOutcomes(plan, loaded));
        Map<Integer, String> newStamps = new HashMap<>();
        for (Planned p : plan) {
            if (p.unchanged && p.copy == null) {
                outcomes.add(unchangedOutcome(p));
                // Read to tell it unchanged (touched, copied back with its times): the next ingest need not.
                if (p.stamp != null && !p.stamp.equals(p.previous.fileStat())) {
                    newStamps.put(p.previous.fileId(), p.stamp);
                }
            }
        }
        keepStamps(newStamps);
        outcomes.addAll(renamedOutcomes(plan, outcomes));
        // The directories whose files changed are grouped into captures again (and any left ungrouped).
        Map<Path, Integer> assumed = Map.of();
        List<Integer> changedCaptures = List.of();
        if (!store.readOnly()) {
            Set<Path> changedDirs = new HashSet<>();
            for (FileOutcome o : outcomes) {
                if (o.status() == Status.INGESTED || o.status() == Status.PARTIAL || rowsRemoved(o)) {
                    changedDirs.add(o.path().getParent());
                }
            }
            changedDirs.addAll(CaptureAssignment.ungrouped(store.connection()));
            assumed = CaptureAssignment.regroup(store.connection(), changedDirs, warnings);
            changedCaptures = StoreFiles.capturesIn(store.connection(), changedDirs);
        }
        List<FileOutcome> result = new ArrayList<>();
        for (FileOutcome o : outcomes) {
            Integer rank = assumed.get(o.path());
            FileOutcome ranked = rank != null ? o.withRank(rank) : o;
            if (o.copyOf() != null) {
                StoreFiles.Row original = StoreFiles.byPath(store.connection(), o.copyOf());
                ranked = ranked.withRank(original == null ? null : original.rank());
            }
            result.add(o.inStore() ? ranked.withCapture(StoreFiles.captureName(store.connection(),
                    o.copyOf() != null ? o.copyOf() : o.path())) : ranked);
        }
        result.sort(Comparator.comparing((FileOutcome o) -> o.path().toString()));
        return new IngestReport(result, warnings, fileBytesToRead.get(), storeProblem(result), changedCaptures,
                (int) outcomes.stream().filter(Ingestor::rowsRemoved).count());
    }

    /**
     * Stores the stamps of unchanged files read to tell them so, in one transaction. They only spare the next
     * ingest a read: where they cannot be stored (a read-only store, a full disk), that ingest reads the files.
     */
    private void keepStamps(Map<Integer, String> stamps) throws SQLException {
        if (stamps.isEmpty() || store.readOnly()) {
            return;
        }
        Connection c = store.connection();
        c.setAutoCommit(false);
        try {
            for (Map.Entry<Integer, String> e : stamps.entrySet()) {
                StoreFiles.setFileStat(c, e.getKey(), e.getValue());
            }
            c.commit();
        } catch (SQLException e) {
            // Not kept: see above.
            rollback(c);
        } finally {
            c.setAutoCommit(true);
        }
    }

    /**
     * The stored files inside the directories given that are no longer on disk (deleted, moved, or compressed
     * in place): their rows would still count as ranks of the directory's capture. A path found now, even
     * unreadable, is not one of them; nor is anything under a directory in which nothing was found (a disk
     * not mounted, a copy not begun): its captures stay as stored.
     */
    private Set<Path> goneFrom(List<Path> inputs, TraceDiscovery.Result found) throws IOException, SQLException {
        Set<Path> gone = new TreeSet<>();
        if (store.readOnly()) {
            return gone;
        }
        Set<Path> seen = new HashSet<>();
        found.traces().forEach(t -> seen.add(t.path()));
        found.skipped().forEach(s -> seen.add(s.path()));
        for (Path input : inputs) {
            Path dir = TraceDiscovery.storedPath(input);
            if (!Files.isDirectory(dir) || seen.stream().noneMatch(p -> p.startsWith(dir))) {
                continue;
            }
            for (StoreFiles.Row r : StoreFiles.under(store.connection(), dir)) {
                if (!seen.contains(r.path()) && Files.notExists(r.path(), LinkOption.NOFOLLOW_LINKS)) {
                    gone.add(r.path());
                }
            }
        }
        return gone;
    }

    /**
     * What became of the files found to be copies, once the others loaded. A copy whose original failed and has
     * no rows at all is loaded in its place, the first of its copies in path order: else that content would be
     * nowhere in the store. A copy is given its original's capture and rank only where the store holds the
     * original as planned (an original that failed may keep rows of its earlier content).
     */
    private List<FileOutcome> copyOutcomes(List<Planned> plan, List<FileOutcome> loaded)
            throws IOException, SQLException {
        Connection c = store.connection();
        Map<Path, Planned> planned = new HashMap<>();
        plan.forEach(p -> planned.put(p.found.path(), p));
        Map<Path, Status> status = new HashMap<>();
        loaded.forEach(o -> status.put(o.path(), o.status()));
        List<Planned> copies = plan.stream().filter(p -> p.copy != null)
                .sorted(Comparator.comparing((Planned p) -> p.found.path())).toList();
        Map<Path, Planned> substitutes = new HashMap<>();
        for (Planned p : copies) {
            if (status.get(p.copy.of()) == Status.FAILED && StoreFiles.byPath(c, p.copy.of()) == null) {
                substitutes.putIfAbsent(p.copy.of(), p);
            }
        }
        List<Planned> substituting = copies.stream().filter(p -> substitutes.get(p.copy.of()) == p).toList();
        fileBytesToRead.addAndGet(substituting.stream().mapToLong(p -> p.fingerprint.size()).sum());
        List<FileOutcome> outcomes = new ArrayList<>(load(substituting));
        outcomes.forEach(o -> status.put(o.path(), o.status()));
        for (Planned p : copies) {
            Planned substitute = substitutes.get(p.copy.of());
            if (substitute == p) {
                continue;
            }
            Path original = substitute == null ? p.copy.of() : substitute.found.path();
            boolean bytes = substitute == null ? !p.copy.onceDecompressed()
                    : p.fingerprint.equals(substitute.fingerprint) && p.fingerprint.contentHash() != null;
            String reason = "same content as " + original.getFileName() + (bytes ? "" : " once decompressed")
                    + " (a copy of the same rank?)";
            String removed = removeStaleRows(c, p.found.path());
            Planned ofOriginal = planned.get(original);
            StoreFiles.Row held = StoreFiles.byPath(c, original);
            if (ofOriginal != null && !holds(held, ofOriginal.fingerprint) || held == null) {
                String why = status.get(original) == Status.SKIPPED ? ", which is no trace"
                        : held != null ? ", which did not load (its rows are of its earlier content)"
                        : ", which did not load";
                outcomes.add(FileOutcome.notLoaded(p.found.path(), Status.SKIPPED, reason + why + removed));
                continue;
            }
            // A file loaded by an earlier ingest (not this one's), without what this one asks for.
            String withoutPython = ofOriginal == null && options.keepPythonFunctions() && !held.pythonFunctions()
                    && Importers.can(held.format(), Importer.Capability.PYTHON_FUNCTIONS) ? "; " + original.getFileName() + " was loaded"
                    + " without its python_function events: ingest it with --keep-python-functions" : "";
            outcomes.add(FileOutcome.copy(p.found.path(), original, reason + withoutPython + removed));
        }
        return outcomes;
    }

    /**
     * Whether a stored row holds the content fingerprinted. A fingerprint taken while loading has no hash: its
     * size tells, as a file is fingerprinted so only when the store held no row of its size for its path.
     */
    private static boolean holds(StoreFiles.Row row, Fingerprint fingerprint) {
        return row != null && row.size() == fingerprint.size()
                && (fingerprint.contentHash() == null || fingerprint.contentHash().equals(row.contentHash()));
    }

    /**
     * The files the store held that are gone from disk and whose very bytes a file of this ingest has (renamed or
     * moved there): their rows go once that file's content is in the store, else the run would hold that rank
     * twice; while it is not (its load failed), they stay, and the line says so.
     */
    private List<FileOutcome> renamedOutcomes(List<Planned> plan, List<FileOutcome> outcomes) throws SQLException {
        Map<Path, FileOutcome> byPath = new HashMap<>();
        outcomes.forEach(o -> byPath.put(o.path(), o));
        List<FileOutcome> renamed = new ArrayList<>();
        for (Planned p : plan) {
            FileOutcome now = byPath.get(p.found.path());
            for (Path was : p.replaces) {
                String as = "no longer on disk (renamed " + p.found.path().getFileName() + "?";
                renamed.add(FileOutcome.notLoaded(was, Status.SKIPPED, now != null && now.inStore()
                        ? as + ")" + removeStaleRows(store.connection(), was)
                        : as + ", which did not load: its rows stay in use)"));
            }
            if (p.gzippedFrom != null) {
                renamed.add(gzippedInPlace(p.gzippedFrom, p.found.path(), now));
            }
        }
        return renamed;
    }

    /**
     * A plain trace gone from disk whose content the gzip file {@code gz} has by its trailer. A trailer is only a
     * claim (a gzip file damaged inside keeps it, a file of several members has its last member's): the gone
     * file's rows go only where the rows the store holds for that content (those of {@code gz}, or of the file it
     * is a copy of) have as many events of each kind as it had, which a gzip file damaged before the end of its
     * events does not. A plain trace cut short and then gzipped loads as short as it did, and counts alike.
     */
    private FileOutcome gzippedInPlace(StoreFiles.Row gone, Path gz, FileOutcome now) throws SQLException {
        String as = "no longer on disk (gzipped into " + gz.getFileName() + "?";
        if (now == null || !now.inStore()) {
            return FileOutcome.notLoaded(gone.path(), Status.SKIPPED,
                    as + ", which did not load: its rows stay in use)");
        }
        StoreFiles.Row held = StoreFiles.byPath(store.connection(), now.copyOf() != null ? now.copyOf() : gz);
        if (held == null || !held.counts().equals(gone.counts())) {
            return FileOutcome.notLoaded(gone.path(), Status.SKIPPED,
                    as + ", whose events are not the same: its rows stay in use)");
        }
        return FileOutcome.notLoaded(gone.path(), Status.SKIPPED,
                as + ")" + removeStaleRows(store.connection(), gone.path()));
    }

    /** Runs the tasks on up to {@code threads} daemon threads; their results in task order. */
    static <T> List<T> onThreads(int threads, List<Callable<T>> tasks) throws IOException {
        if (tasks.isEmpty()) {
            return List.of();
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads), r -> {
            Thread t = new Thread(r, FILE_THREAD);
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> task : tasks) {
                futures.add(pool.submit(task));
            }
            List<T> out = new ArrayList<>();
            for (Future<T> f : futures) {
                try {
                    out.add(f.get());
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof IOException io) {
                        throw io;
                    }
                    throw new IllegalStateException("ingest worker failed", e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                }
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    private List<FileOutcome> load(List<Planned> work) throws IOException, SQLException {
        if (store.readOnly()) {
            // Files changed since they were loaded keep their earlier rows: the report says which.
            return work.stream().map(p -> FileOutcome.notLoaded(p.found.path(), Status.FAILED,
                    notWritable() + (p.previous == null ? "" : " (its rows from an earlier ingest stay in use)"))).toList();
        }
        if (work.isEmpty()) {
            return List.of();
        }
        AtomicInteger nextFileId = new AtomicInteger(StoreFiles.maxFileId(store.connection()));
        List<Planned> bySize = new ArrayList<>(work);
        // Largest first, so the last file to finish is a small one.
        bySize.sort(Comparator.comparingLong((Planned p) -> p.fingerprint.size()).reversed());
        int threads = filesAtOnce(options.threads(), bySize.size(), Runtime.getRuntime().maxMemory());
        int cores = Runtime.getRuntime().availableProcessors();
        boolean helperThreads = options.helperThreads()
                && busyFiles(bySize.stream().map(p -> p.fingerprint.size()).toList(), threads) < cores;
        // The scan threads by the files at once, small ones too: each file's scan holds its own chunks.
        FileThreads fileThreads = helperThreads ? new FileThreads(true, scanThreads(cores, threads, options),
                readAheadBytes(threads, Runtime.getRuntime().maxMemory())) : new FileThreads(false, 1, 0);
        String outOfHeap = outOfHeapAdvice(threads);
        List<Callable<FileOutcome>> tasks = new ArrayList<>();
        for (Planned p : bySize) {
            tasks.add(() -> loadOne(p, nextFileId.incrementAndGet(), fileThreads, outOfHeap));
        }
        try (DuckDbLoadSettings loading = DuckDbLoadSettings.apply(store.connection())) {
            return onThreads(threads, tasks);
        }
    }

    /**
     * What a file whose load runs out of Java heap is reported with, made before the loads: once the heap is
     * gone, the handler should only put strings together.
     */
    private static String outOfHeapAdvice(int filesAtOnce) {
        return Messages.outOfHeap(" while loading")
                + (filesAtOnce > 1 ? ", or load fewer files at once (ingest --threads 1)" : "");
    }

    /**
     * Of the files to load ({@code sizes}, largest first), how many keep a file thread busy through most of the
     * load, at most {@code filesAtOnce}: those of at least a quarter of the largest's size. A smaller one ends
     * early in the largest's load, and counting it would take the helper threads from a large file that then
     * loads alone (a 1 GB trace beside a 20 KB JSON file took 2.75-3.03 s against 2.33 s alone, docs/performance.md).
     */
    public static int busyFiles(List<Long> sizes, int filesAtOnce) {
        long largest = sizes.isEmpty() ? 0 : sizes.get(0);
        return (int) Math.min(filesAtOnce, sizes.stream().filter(s -> s >= largest / 4).count());
    }

    /**
     * Bytes a file's read-ahead ({@link ReadAhead}) queues while {@code filesAtOnce} files load: all files' queues
     * together a sixteenth of the heap, 2-16 MiB each. Deeper than 2 MiB, the gunzip thread runs ahead while the
     * insert thread idles and the parser no longer waits for it when both run: one gzip file on two cores loaded
     * 1.58-1.65x faster than on one thread with 16 MiB, 1.47-1.54x with 2 MiB (docs/performance.md).
     */
    static int readAheadBytes(int filesAtOnce, long maxHeap) {
        return (int) Math.max(ReadAhead.MIN_BYTES, Math.min(ReadAhead.MAX_BYTES, maxHeap / 16 / filesAtOnce));
    }

    /** Files to load at once: as many as asked (cores by default) and there are, as far as the heap holds them. */
    static int filesAtOnce(int asked, int files, long maxHeap) {
        return (int) Math.max(1, Math.min(Math.min(asked, files), maxHeap / HEAP_PER_FILE));
    }

    /**
     * Threads to scan each file's event list on while {@code files} load at once on {@code cores}, unless the
     * options say. With one or two files: those of a file's share of the cores that its insert thread leaves,
     * when two or more, and at most {@value #MAX_SCAN_THREADS}. With two cores the insert and read-ahead
     * threads already keep the second busy, and the scan's hand-offs only cost (docs/performance.md,
     * "Why the code is as it is"); past four threads the file's insert thread is the slower one;
     * and each file's scan holds its chunks and their events (about 20 MB of heap, up to 75 MB for tiny
     * entries), so with more files at once, which use the cores themselves, it is not used.
     */
    public static int scanThreads(int cores, int files, IngestOptions options) {
        if (options.scanThreads() > 0) {
            return options.scanThreads();
        }
        int spare = cores / files - 1;
        return files <= 2 && spare >= 2 ? Math.min(spare, MAX_SCAN_THREADS) : 1;
    }

    /**
     * Loads one trace in one transaction: the importer of its format writes the event rows, then the
     * files row is added and the transaction commits; any failure rolls the whole file back, running out
     * of Java heap included (the other files still load), and so does a trace any of whose files changed
     * while it was read (its rows and fingerprint may be of two contents).
     */
    private FileOutcome loadOne(Planned p, int fileId, FileThreads threads, String outOfHeap) {
        TraceDiscovery.Found f = p.found;
        beforeLoad.accept(f.path());
        long t0 = System.nanoTime();
        long readFrom = System.currentTimeMillis();
        FileIdentity before;
        try {
            before = FileIdentity.of(f);
        } catch (IOException e) {
            return FileOutcome.notLoaded(f.path(), Status.FAILED, "cannot read: " + Messages.io(e));
        }
        try (Connection c = store.newConnection()) {
            c.setAutoCommit(false);
            // A file changed since planning fingerprinted it (or never fingerprinted) is fingerprinted from the
            // bytes this load reads: its rows are stored under their own content's hash.
            boolean asPlanned = p.fingerprint.contentHash() != null && p.fingerprinted != null
                    && p.fingerprinted.sameAs(before);
            Fingerprint.Digest digest = asPlanned ? null : new Fingerprint.Digest();
            try {
                FileSummary summary = read(c, p, fileId, threads, null, digest);
                if (summary.reread != null) {
                    // Events read after the damage were made from corrupt data: read the file again, up to it.
                    c.rollback();
                    summary = read(c, p, fileId, threads, summary.reread, null);
                }
                double seconds = (System.nanoTime() - t0) / 1e9;
                Rank rank = rankOf(f.path(), summary);
                Fingerprint fp = fingerprint(p, digest);
                FileIdentity after = FileIdentity.of(f);
                if (!before.isStill(after)) {
                    c.rollback();
                    return FileOutcome.notLoaded(f.path(), Status.FAILED, CHANGED_WHILE_READ);
                }
                String stamp = stampOfLoad(p, digest, before, after, readFrom);
                insertFileRow(c, fileId, p, fp, stamp, summary, rank, seconds);
                StoreFiles.deleteNonTrace(c, f.path());
                c.commit();
                Status status = summary.partial ? Status.PARTIAL : Status.INGESTED;
                return new FileOutcome(f.path(), null, rank.value, status, summary.partialReason,
                        summary.counts(), summary.bytesRead, seconds, null);
            } catch (NotATraceException e) {
                c.rollback();
                Fingerprint fp;
                boolean changed;
                try {
                    fp = fingerprint(p, digest);
                    changed = !before.isStill(f);
                } catch (IOException unreadable) {
                    return FileOutcome.notLoaded(f.path(), Status.FAILED,
                            "cannot read: " + Messages.io(unreadable));
                }
                if (changed) {
                    return FileOutcome.notLoaded(f.path(), Status.FAILED, CHANGED_WHILE_READ);
                }
                StoreFiles.putNonTrace(c, f.path(), fp.size(), fp.contentHash(), e.getMessage());
                String removed = removeStaleRows(c, f.path());
                c.commit();
                return FileOutcome.notLoaded(f.path(), Status.SKIPPED, e.getMessage() + removed);
            } catch (IOException e) {
                rollback(c);
                return FileOutcome.notLoaded(f.path(), Status.FAILED, "cannot read: " + Messages.io(e));
            } catch (SQLException | StoreWriteException e) {
                rollback(c);
                return FileOutcome.notLoaded(f.path(), Status.FAILED, storeError(e));
            } catch (RuntimeException e) {
                rollback(c);
                if (Messages.environmentFault(e)) {
                    // Writing the rows needs room on disk, also for the Arrow library that moves them.
                    return FileOutcome.notLoaded(f.path(), Status.FAILED, storeError(e));
                }
                throw e;
            } catch (OutOfMemoryError e) {
                // What the load held went with its frames: the rollback and this line need little heap. Out of
                // native threads, direct buffers or array size, more heap would not help: the error says which.
                rollback(c);
                return FileOutcome.notLoaded(f.path(), Status.FAILED, Messages.heapExhausted(e) != null ? outOfHeap
                        : "ran out of memory while loading: " + e.getMessage());
            }
        } catch (SQLException e) {
            return FileOutcome.notLoaded(f.path(), Status.FAILED, storeError(e));
        }
    }

    /**
     * The file's fingerprint: known from planning ({@code digest} null), else the one taken while it was read,
     * else (the reader stopped before the end of the file) read now.
     */
    private static Fingerprint fingerprint(Planned p, Fingerprint.Digest digest) throws IOException {
        if (digest == null) {
            return p.fingerprint;
        }
        Fingerprint whileRead = digest.fingerprint();
        return whileRead != null ? whileRead : Fingerprint.of(p.found);
    }

    /**
     * The stamp to store with a loaded file ({@code files.file_stat}), whose files were {@code before} when its
     * load began at {@code readFrom} and {@code after} at its end: that of this read where it took the
     * fingerprint, else the one planning read it from, if the files' stamp stayed the same since.
     */
    private static String stampOfLoad(Planned p, Fingerprint.Digest digest, FileIdentity before, FileIdentity after,
                                      long readFrom) {
        if (digest != null) {
            return before.stampOfRead(readFrom, after);
        }
        return p.stamp != null && p.stamp.equals(before.stamp()) && p.stamp.equals(after.stamp()) ? p.stamp : null;
    }

    /** Writes one file's rows, in the caller's transaction, replacing its earlier rows. */
    private FileSummary read(Connection c, Planned p, int fileId, FileThreads threads,
                             TraceInput.Stop stop, Fingerprint.Digest digest) throws IOException, SQLException {
        if (p.previous != null) {
            StoreFiles.deleteFile(c, p.previous.fileId());
        }
        return p.found.importer().read(new ImportJob(p.found, p.fingerprint.size(), fileId, c, store.allocator(),
                tables, options, threads, stop, eventsRead, fileBytesRead, jsonBytesRead, digest));
    }

    /**
     * Rolls a failed file's transaction back. DuckDB has already rolled it back when the failure was its
     * own (a full disk): the error that caused it is the one to report, not that there is nothing left.
     */
    private static void rollback(Connection c) {
        try {
            c.rollback();
        } catch (SQLException e) {
            // nothing left to roll back
        }
    }

    /**
     * A file that was a trace when last ingested and no longer is: its old rows describe nothing on
     * disk any more, so they go, on {@code c} (a load thread's own connection: the store's is not shared
     * between threads). Returns the note for the file's reason ("" when there was nothing).
     */
    private String removeStaleRows(Connection c, Path path) throws SQLException {
        StoreFiles.Row stale = StoreFiles.byPath(c, path);
        if (stale == null || store.readOnly()) {
            return "";
        }
        StoreFiles.deleteFile(c, stale.fileId());
        return STALE_ROWS_REMOVED;
    }

    /** Whether this ingest removed the file's rows from an earlier one ({@link #removeStaleRows} said so). */
    private static boolean rowsRemoved(FileOutcome o) {
        return o.status() == Status.SKIPPED && o.reason().endsWith(STALE_ROWS_REMOVED);
    }

    private record Rank(Integer value, String source) {}

    /**
     * The file's rank: the one the trace states, else its name's. A stated rank below 0 or world size below 1
     * is no rank of any run: ignored and counted, so that the file is placed as one that states none.
     */
    private static Rank rankOf(Path file, FileSummary s) {
        if (s.worldSize != null && s.worldSize < 1) {
            s.anomaly("world_size_out_of_range_ignored", 1);
            s.worldSize = null;
        }
        if (s.rank != null && s.rank < 0) {
            s.anomaly("rank_out_of_range_ignored", 1);
            s.rank = null;
            s.rankSource = null;
        }
        if (s.rank != null) {
            return new Rank(s.rank, s.rankSource);
        }
        OptionalInt fromName = RankFromFileName.of(file.getFileName().toString());
        return fromName.isPresent() ? new Rank(fromName.getAsInt(), "file_name") : new Rank(null, null);
    }

    private void insertFileRow(Connection c, int fileId, Planned p, Fingerprint fp, String stamp, FileSummary s,
                               Rank rank, double seconds) throws SQLException {
        NamedRow row = new NamedRow()
                .set("file_id", fileId)
                // The capture comes once the directory's files are grouped (CaptureAssignment).
                .set("capture_id", null)
                .set("path", p.found.path().toString())
                .set("size_bytes", fp.size())
                .set("content_hash", fp.contentHash())
                .set("file_stat", stamp)
                .set("format", p.found.format())
                .set("compressed", p.found.compressed())
                .set("status", s.partial ? "partial" : "ingested")
                .set("partial_reason", s.partialReason)
                .set("damage_offset", s.partial ? s.damageOffset : null)
                .set("rank", rank.value)
                .set("rank_source", rank.source)
                .set("world_size", s.worldSize)
                .set("host_name", s.hostName)
                .set("base_time_ns", s.baseTimeNs)
                .set("first_ts_ns", s.firstTsNs)
                .set("last_ts_ns", s.lastTsNs)
                .set("json_bytes", s.bytesRead)
                .set("n_kernel", s.kernels)
                .set("n_memcpy", s.memcpys)
                .set("n_memset", s.memsets)
                .set("n_sync", s.syncs)
                .set("n_runtime", s.runtime)
                .set("n_cpu_op", s.cpuOps)
                .set("n_annotation", s.annotations)
                .set("n_python", s.python)
                .set("n_comm_meta", s.commRows)
                .set("n_dropped", s.dropped)
                .set("anomalies", s.anomalies.isEmpty() ? null : toJson(s.anomalies))
                .set("distributed_info", s.distributedInfo)
                .set("metadata", s.metadata)
                .set("ingested_at", Timestamp.from(Instant.now()))
                .set("parse_seconds", seconds)
                .set("python_functions", p.found.can(Importer.Capability.PYTHON_FUNCTIONS)
                        ? options.keepPythonFunctions() : null);
        NamedRow.insert(c, "files", List.of(row));
    }

    private FileOutcome unchangedOutcome(Planned p) {
        StoreFiles.Row prev = p.previous;
        return new FileOutcome(p.found.path(), null, prev.rank(), Status.UNCHANGED, null,
                prev.counts(), prev.jsonBytes(), 0, null);
    }

    private String notWritable() {
        return STORE_READ_ONLY + store.path() + " cannot be written (" + store.whyReadOnly() + ")";
    }

    /** A file's reason when the store failed it: DuckDB's error, or what to do where it ran out of memory. */
    private static String storeError(Exception e) {
        String outOfMemory = Store.outOfMemory(e);
        return STORE_ERROR + (outOfMemory != null ? outOfMemory : Messages.firstLine(e.getMessage()));
    }

    /**
     * Why nothing could be written, when every file that was to be loaded failed because of the store
     * (read-only, full, broken), else null: saying "no usable trace" then would send the user after
     * the traces.
     */
    private static String storeProblem(List<FileOutcome> outcomes) {
        List<FileOutcome> failed = outcomes.stream().filter(o -> o.status() == Status.FAILED).toList();
        if (failed.isEmpty() || outcomes.stream().anyMatch(FileOutcome::inStore)) {
            return null;
        }
        return failed.stream().map(FileOutcome::reason)
                .filter(r -> r.startsWith(STORE_ERROR) || r.startsWith(STORE_READ_ONLY)).findFirst().orElse(null);
    }

    private static String toJson(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

}
