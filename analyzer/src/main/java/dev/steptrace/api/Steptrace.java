package dev.steptrace.api;

import dev.steptrace.analysis.AnalysisKey;
import dev.steptrace.analysis.CaptureAnalysis;
import dev.steptrace.store.CaptureScope;
import dev.steptrace.analysis.DiffBuilder;
import dev.steptrace.analysis.StoredAnalysis;
import dev.steptrace.common.BoundedRegex;
import dev.steptrace.common.Messages;
import dev.steptrace.ingest.CaptureAssignment;
import dev.steptrace.ingest.FileOutcome;
import dev.steptrace.ingest.IngestOptions;
import dev.steptrace.ingest.IngestReport;
import dev.steptrace.ingest.Ingestor;
import dev.steptrace.ingest.TraceDiscovery;
import dev.steptrace.report.ReportContent;
import dev.steptrace.store.Store;
import dev.steptrace.store.StoreException;
import dev.steptrace.timeline.TimelineOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * steptrace as a library: open a store (or trace files, which are ingested into one), list its
 * captures, analyse one ({@link Capture}: per-step and per-category tables, kernels, collectives, the
 * bottleneck report), compare two ({@link #diff}), and run SQL into Tablesaw tables; {@link Charts}
 * turns a table into a chart in one call. The command line is built on these same calls.
 *
 * <pre>{@code
 * try (Steptrace st = Steptrace.openTraces(Path.of("sample-traces/h200-tp2-moe-decode/graph-nccl-ll"))) {
 *     Capture c = st.capture();
 *     Table decode = c.breakdown("decode");          // category, label, ms_per_step, share_pct, calls_per_step
 *     Charts.save(Charts.stackedBars(c.rankBreakdown("decode"), "rank", "ms_per_step", "category"),
 *                 Path.of("out/ranks.png"));
 *     Table top = st.sql("SELECT name, count(*) AS calls FROM kernels GROUP BY name ORDER BY calls DESC LIMIT 5");
 * }
 * }</pre>
 *
 * <p>Every method throws the unchecked {@link SteptraceException} on failure. A {@code Steptrace} and
 * its captures are meant for one thread at a time. {@link #close()} closes the captures it handed out
 * and the store (when it opened it). Reading a store with Java 17 needs the JVM option
 * {@code --add-opens=java.base/java.nio=ALL-UNNAMED} (Apache Arrow, which ingest uses).
 */
public final class Steptrace implements AutoCloseable {
    private final Store store;
    private final boolean ownsStore;
    private final List<Capture> open = new ArrayList<>();
    private List<Integer> loaded = List.of();

    private Steptrace(Store store, boolean ownsStore) {
        this.store = store;
        this.ownsStore = ownsStore;
    }

    // ---- opening ----

    /**
     * Opens an existing store (a DuckDB file written by {@code steptrace ingest}, {@code report} or
     * {@link #openTraces}).
     *
     * @param store the database file
     * @return the open store
     * @throws SteptraceException when there is no such file or it is not a steptrace store
     */
    public static Steptrace open(Path store) {
        if (!Files.isRegularFile(store)) {
            throw new SteptraceException("no store at " + store.toAbsolutePath()
                    + " (open trace files with Steptrace.openTraces, or run `steptrace ingest`)");
        }
        return openOrCreate(store);
    }

    /**
     * Opens the store at {@code store}, creating an empty one when the file does not exist.
     *
     * @param store the database file
     * @return the open store
     */
    public static Steptrace openOrCreate(Path store) {
        try {
            return new Steptrace(Store.open(store), true);
        } catch (StoreException e) {
            throw new SteptraceException(e.getMessage(), e);
        }
    }

    /**
     * Ingests the traces under {@code traceDir} into the default store (as the command line does:
     * {@code $STEPTRACE_DB}, else {@code steptrace.duckdb} in the working directory) and opens it. Files
     * already ingested and unchanged are not read again. Files skipped or only partly read are reported
     * on {@code System.err}.
     *
     * @param traceDir a capture directory (one trace file per rank), a directory of captures, or a file
     * @return the open store; {@link #capture()} is the capture loaded when there is one
     * @throws SteptraceException when the path does not exist or holds no usable trace
     */
    public static Steptrace openTraces(Path traceDir) {
        return openTraces(traceDir, Store.resolve(null));
    }

    /**
     * Ingests the traces under {@code traceDir} into {@code store} (created when missing) and opens it.
     *
     * @param traceDir a capture directory (one trace file per rank), a directory of captures, or a file
     * @param store    the database file
     * @return the open store; {@link #capture()} is the capture loaded when there is one
     * @throws SteptraceException when the path does not exist or holds no usable trace
     */
    public static Steptrace openTraces(Path traceDir, Path store) {
        Steptrace st = openOrCreate(store);
        try {
            st.load(traceDir, IngestOptions.defaults(), IngestListener.printingProblems(System.err));
            return st;
        } catch (RuntimeException e) {
            st.close();
            throw e;
        }
    }

    /**
     * Wraps a store that is already open (the command line's). Closing the result closes its captures
     * but leaves the store open.
     *
     * @param store an open store
     * @return the API over it
     */
    public static Steptrace of(Store store) {
        return new Steptrace(store, false);
    }

    /**
     * The steptrace version (as {@code steptrace --version} prints it).
     *
     * @return the version, or {@code unknown}
     */
    public static String version() {
        return buildProperty("version");
    }

    /** This build of steptrace (its build time): what the analyses kept in a store record, and are reused under. */
    static String build() {
        return buildProperty("build");
    }

    private static String buildProperty(String key) {
        Properties p = new Properties();
        try (InputStream in = Steptrace.class.getResourceAsStream("/steptrace-version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            return "unknown";
        }
        return p.getProperty(key, "unknown");
    }

    // ---- ingest ----

    /**
     * Ingests trace files or directories (searched recursively) with the default options, silently.
     *
     * @param paths files or directories
     * @return every file's outcome
     */
    public IngestReport ingest(Path... paths) {
        return ingest(List.of(paths), IngestOptions.defaults(), IngestListener.NONE);
    }

    /**
     * Ingests trace files or directories (searched recursively): unchanged files already in the store are
     * skipped, changed ones replaced, one transaction per file.
     *
     * @param paths    files or directories
     * @param options  threads, python_function events, read-ahead
     * @param listener told when the ingest starts and ends
     * @return every file's outcome
     * @throws SteptraceException when a path does not exist
     */
    public IngestReport ingest(List<Path> paths, IngestOptions options, IngestListener listener) {
        Ingestor ingestor = new Ingestor(store, options);
        IngestReport report;
        AutoCloseable display = null;
        try {
            display = listener.started(new IngestProgress(ingestor.fileBytesRead(), ingestor.fileBytesToRead(),
                    ingestor.jsonBytesRead(), ingestor.eventsRead()));
            report = ingestor.ingest(paths);
        } catch (NoSuchFileException e) {
            throw new SteptraceException("no such file or directory: " + e.getFile(), e);
        } catch (IOException | SQLException e) {
            throw SteptraceException.internal("ingest failed: " + Messages.firstLine(e.getMessage()), e);
        } finally {
            closeQuietly(display);
        }
        listener.finished(report);
        return report;
    }

    /**
     * Ingests {@code path} (a no-op for files already in the store and unchanged) and returns the
     * captures it names: what {@code steptrace report PATH} analyses. A directory names the captures of
     * the directory and those below it (docs/schema.md, "Captures": a directory may hold several runs);
     * a trace file names that file alone, a capture of one rank whatever lies beside it.
     * {@link #capture()} is then the capture loaded, when there is one.
     *
     * @param path     a capture directory, a directory of captures, or a trace file
     * @param options  ingest options
     * @param listener told when the ingest starts and ends
     * @return the captures, by path
     * @throws SteptraceException when the path does not exist or holds no usable trace
     */
    public List<CaptureInfo> load(Path path, IngestOptions options, IngestListener listener) {
        IngestReport report = ingest(List.of(path), options, listener);
        if (!report.anyUsable() && report.storeProblem() != null) {
            throw new SteptraceException("nothing could be loaded: " + report.storeProblem());
        }
        List<Integer> ids;
        try {
            Path real = TraceDiscovery.storedPath(path);
            if (!Files.isDirectory(real) || TraceDiscovery.traceDirectory(real) != null) {
                // A trace file, or a directory that is one trace (an nsys Parquet export); a copy of a file beside
                // it is that file.
                Path trace = report.files().stream().filter(f -> f.path().equals(real) && f.copyOf() != null)
                        .map(FileOutcome::copyOf).findFirst().orElse(real);
                Integer alone = CaptureAssignment.aloneCapture(store.connection(), trace, !store.readOnly());
                ids = alone == null ? List.of() : List.of(alone);
            } else {
                ids = CaptureScope.under(store.connection(), real);
            }
        } catch (IOException e) {
            throw new SteptraceException("no such file or directory: " + path, e);
        } catch (StoreException e) {
            throw new SteptraceException(e.getMessage(), e);
        } catch (SQLException e) {
            throw SteptraceException.internal("finding the captures of " + path + " failed: "
                    + Messages.firstLine(e.getMessage()), e);
        }
        if (ids.isEmpty()) {
            throw new SteptraceException("no usable trace in " + path
                    + " (looked for Kineto JSON traces, plain or gzip, with a \"traceEvents\" list,"
                    + " and Nsight Systems exports: SQLite, Parquet directory, Arrow stream)");
        }
        loaded = List.copyOf(ids);
        Map<Integer, CaptureInfo> all = captureMap();
        return ids.stream().map(all::get).toList();
    }

    // ---- captures ----

    /**
     * The captures in the store, by path.
     *
     * @return one record per capture that has files
     */
    public List<CaptureInfo> captureList() {
        return List.copyOf(captureMap().values());
    }

    /**
     * The captures in the store as a table. Columns: capture_id, name, path, files, ranks (e.g.
     * {@code 0,1}), partial_files, kernels.
     *
     * @return the table
     */
    public Table captures() {
        IntColumn id = IntColumn.create("capture_id");
        StringColumn name = StringColumn.create("name");
        StringColumn path = StringColumn.create("path");
        IntColumn files = IntColumn.create("files");
        StringColumn ranks = StringColumn.create("ranks");
        IntColumn partial = IntColumn.create("partial_files");
        LongColumn kernels = LongColumn.create("kernels");
        for (CaptureInfo c : captureList()) {
            id.append(c.id());
            name.append(c.name());
            path.append(c.path().toString());
            files.append(c.files());
            ranks.append(c.ranks().stream().map(String::valueOf).collect(Collectors.joining(",")));
            partial.append(c.partialFiles());
            kernels.append(c.kernels());
        }
        return Table.create("captures", id, name, path, files, ranks, partial, kernels);
    }

    /**
     * The capture: the one {@link #openTraces} or {@link #load} loaded, else the store's only capture.
     *
     * @return the analysed capture (close it, or this object, when done)
     * @throws SteptraceException when there is none, or several to choose from
     */
    public Capture capture() {
        List<Integer> ids = loaded.isEmpty() ? List.copyOf(captureMap().keySet()) : loaded;
        if (ids.size() == 1) {
            return capture(ids.get(0));
        }
        Map<Integer, CaptureInfo> all = captureMap();
        throw new SteptraceException(ids.isEmpty() ? "the store holds no capture"
                : ids.size() + " captures to choose from (" + ids.stream().map(i -> all.get(i).name())
                        .collect(Collectors.joining(", ")) + "): name one with capture(name)");
    }

    /**
     * A capture of the store by its directory (absolute, or relative to the working directory) or, when
     * no capture has that path, by its name; analysed with the default options.
     *
     * @param nameOrPath a capture directory or a capture name
     * @return the analysed capture
     * @throws SteptraceException when no capture, or several, match
     */
    public Capture capture(String nameOrPath) {
        return capture(find(nameOrPath).id(), AnalysisOptions.defaults());
    }

    /**
     * A capture of the store by id, analysed with the default options.
     *
     * @param captureId {@code captures.capture_id}
     * @return the analysed capture
     */
    public Capture capture(int captureId) {
        return capture(captureId, AnalysisOptions.defaults());
    }

    /**
     * A capture of the store by id, analysed with the given taxonomy and step source: the analysis the
     * store keeps for the capture's current files, these options and this build, else a new one, then
     * kept in the store's analysis tables (docs/schema.md, "The analysis"). The device peaks and model
     * file shape only its report's roofline, made from the kept analysis (docs/roofline.md).
     *
     * @param captureId {@code captures.capture_id}
     * @param options   taxonomy and step regex (the analysis); device peaks and model file (its report)
     * @return the analysed capture
     */
    public Capture capture(int captureId, AnalysisOptions options) {
        AnalysisKey key = AnalysisKey.of(options.taxonomy(), options.stepRegex(), options.thresholds());
        StoredAnalysis analysis;
        CaptureAnalysis live = null;
        try {
            analysis = StoredAnalysis.find(store.connection(), captureId, key, build());
            if (analysis == null) {
                live = CaptureAnalysis.run(store, captureId, key);
                live.persist(build());
                if (store.readOnly()) {
                    // A read-only store keeps the analysis in the analysis connection's temp tables, for this run only.
                    analysis = StoredAnalysis.find(live.connection(), captureId, key, build());
                } else {
                    live.close();
                    live = null;
                    analysis = StoredAnalysis.find(store.connection(), captureId, key, build());
                }
            }
        } catch (StoreException e) {
            throw new SteptraceException(e.getMessage(), e);
        } catch (BoundedRegex.TooSlow e) {
            // A user's rule or --step-regex: the message says which, and what to do.
            closeQuietly(live);
            throw new SteptraceException(e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(live);
            throw e;
        } catch (SQLException e) {
            closeQuietly(live);
            throw SteptraceException.internal("analysing capture " + captureId + " failed: "
                    + Messages.firstLine(e.getMessage()), e);
        }
        if (analysis == null) {
            closeQuietly(live);
            throw SteptraceException.internal("the analysis of capture " + captureId + " was not kept", null);
        }
        Capture c = new Capture(this, analysis, options.roofline(), live);
        synchronized (open) {
            open.add(c);
        }
        return c;
    }

    /**
     * A capture's report content under these options, from its analysis in the store (made first when the
     * store has none for the capture's current files): what {@code steptrace report} writes.
     *
     * @param captureId {@code captures.capture_id}
     * @param options   taxonomy and step regex; device peaks and model file
     * @return the report and its per-step series
     */
    public ReportContent reportContent(int captureId, AnalysisOptions options) {
        try (Capture c = capture(captureId, options)) {
            return c.reportContent();
        }
    }

    /**
     * Analyses each capture whose files an ingest changed (loaded, or removed: {@link IngestReport#changedCaptures})
     * under the default options and keeps the analysis in the store, as {@code steptrace ingest} does: the next
     * {@code steptrace report} of an unchanged capture only reads it. One whose analysis is kept already is only
     * looked up.
     *
     * @param ingested what {@link #ingest} returned
     * @return the captures analysed, by id
     */
    public List<Integer> prepareReports(IngestReport ingested) {
        List<Integer> ids = ingested.changedCaptures();
        AnalysisOptions defaults = AnalysisOptions.defaults();
        for (int id : ids) {
            capture(id, defaults).close();
        }
        return ids;
    }

    /**
     * Writes a capture's report as {@code steptrace report --no-timeline} does, from {@link #reportContent}.
     *
     * @param capture   the capture
     * @param options   taxonomy and step regex; device peaks and model file
     * @param dir       the output directory (created when missing)
     * @param templates a directory of Freemarker templates overriding the built-in ones, or null
     * @param phase     only this phase, or null for all
     * @param json      write report.json
     * @param html      write report.html
     * @param markdown  write report.md and its PNG charts
     * @return the files written: report.json, report.html, report.md, PNGs
     */
    public List<Path> writeReport(CaptureInfo capture, AnalysisOptions options, Path dir, Path templates,
                                  String phase, boolean json, boolean html, boolean markdown) {
        return writeReport(capture, options, dir, templates, phase, json, html, markdown, false);
    }

    /**
     * Writes a capture's report as {@code steptrace report} does, from its analysis in the store, and with
     * {@code timeline} the timeline of its slowest step beside it ({@link TimelineOptions#slowestAlone}
     * of {@code phase}; docs/timeline.md).
     *
     * @param capture   the capture
     * @param options   taxonomy and step regex; device peaks and model file
     * @param dir       the output directory (created when missing)
     * @param templates a directory of Freemarker templates overriding the built-in ones, or null
     * @param phase     only this phase, or null for all
     * @param json      write report.json
     * @param html      write report.html
     * @param markdown  write report.md and its PNG charts
     * @param timeline  also write the slowest step's timeline (when the capture has steps)
     * @return the files written: report.json, report.html, report.md, PNGs, the timeline
     */
    public List<Path> writeReport(CaptureInfo capture, AnalysisOptions options, Path dir, Path templates,
                                  String phase, boolean json, boolean html, boolean markdown, boolean timeline) {
        try (Capture c = capture(capture.id(), options)) {
            return c.writeReport(dir, templates, phase, json, html, markdown, timeline);
        }
    }

    /**
     * A capture in the store by directory (absolute, or relative to the working directory) or, when no
     * capture has that path, by name (names are unique in the store).
     *
     * @param nameOrPath a capture directory or a capture name
     * @return the capture
     * @throws SteptraceException when none matches, or the directory holds several captures
     */
    public CaptureInfo find(String nameOrPath) {
        Path path = Path.of(nameOrPath);
        String abs = path.toAbsolutePath().normalize().toString();
        List<Integer> ids = new ArrayList<>();
        try (PreparedStatement ps = store.connection().prepareStatement("""
                SELECT capture_id FROM captures WHERE capture_id IN (SELECT capture_id FROM capture_files)
                AND ((path = ? AND single_file_id IS NULL)
                     OR (name = ? AND NOT EXISTS (SELECT 1 FROM captures c2 WHERE c2.path = ?)))
                ORDER BY name
                """)) {
            ps.setString(1, abs);
            ps.setString(2, nameOrPath);
            ps.setString(3, abs);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getInt(1));
                }
            }
        } catch (SQLException e) {
            throw SteptraceException.internal("looking up the capture " + nameOrPath + " failed", e);
        }
        Map<Integer, CaptureInfo> all = captureMap();
        if (ids.isEmpty()) {
            throw new SteptraceException(nameOrPath + " is neither a trace directory nor a capture in the store"
                    + " (by path or name)");
        }
        if (ids.size() > 1) {
            throw new SteptraceException(nameOrPath + " holds " + ids.size() + " captures ("
                    + ids.stream().map(i -> all.get(i).name()).collect(Collectors.joining(", "))
                    + "); name one of them");
        }
        return all.get(ids.get(0));
    }

    /**
     * What {@code steptrace diff A B} does with A and B: a path on disk is loaded ({@link #load}: ingested
     * when needed) and must hold exactly one capture; anything else is looked up in the store by path,
     * then by name ({@link #find}).
     *
     * @param arg      a trace directory or a capture in the store
     * @param options  ingest options for a path on disk
     * @param listener told when the ingest starts and ends
     * @return the capture
     * @throws SteptraceException when nothing, or more than one capture, matches
     */
    public CaptureInfo resolve(String arg, IngestOptions options, IngestListener listener) {
        Path path = Path.of(arg);
        if (Files.exists(path)) {
            List<CaptureInfo> captures = load(path, options, listener);
            if (captures.size() > 1) {
                throw new SteptraceException(arg + " holds " + captures.size() + " captures ("
                        + captures.stream().map(CaptureInfo::name).collect(Collectors.joining(", "))
                        + "); name one of them");
            }
            return captures.get(0);
        }
        return find(arg);
    }

    // ---- diff ----

    /**
     * Compares two captures phase by phase (docs/diff.md), with the default bootstrap seed: what
     * {@code steptrace diff A B} writes.
     *
     * @param a the baseline
     * @param b the candidate
     * @return the comparison
     */
    public static Diff diff(Capture a, Capture b) {
        return diff(a, b, DiffBuilder.DEFAULT_SEED);
    }

    /**
     * Compares two captures phase by phase with the given bootstrap seed (same inputs and seed, same
     * result).
     *
     * @param a    the baseline
     * @param b    the candidate
     * @param seed the resampling seed
     * @return the comparison
     */
    public static Diff diff(Capture a, Capture b, long seed) {
        try {
            return new Diff(a, b, new DiffBuilder(a.analysis(), a.report(), b.analysis(), b.report(), seed).build(version()));
        } catch (SQLException e) {
            throw SteptraceException.internal("comparing " + a.name() + " with " + b.name() + " failed: "
                    + Messages.firstLine(e.getMessage()), e);
        }
    }

    // ---- SQL ----

    /**
     * Runs SQL on the store (tables and views of docs/schema.md: {@code kernels}, {@code gpu_events},
     * {@code files}, {@code captures}, ...) into a Tablesaw table. For a capture's analysis tables (steps,
     * categories, collectives) use {@link Capture#sql}.
     *
     * @param sql one query
     * @return its result
     * @throws SteptraceException when DuckDB rejects the query
     */
    public Table sql(String sql) {
        return TableReader.query(store.connection(), sql);
    }

    /**
     * The store's connection, for JDBC use (auto-commit; closed with this object when it opened the
     * store).
     *
     * @return the connection
     */
    public Connection connection() {
        return store.connection();
    }

    /**
     * The store underneath.
     *
     * @return the store
     */
    public Store store() {
        return store;
    }

    /**
     * Closes the captures handed out, then the store when this object opened it.
     */
    @Override
    public void close() {
        List<Capture> captures;
        synchronized (open) {
            captures = new ArrayList<>(open);
        }
        RuntimeException failure = null;
        for (Capture c : captures) {
            try {
                c.close();
            } catch (RuntimeException e) {
                failure = failure == null ? e : failure;
            }
        }
        if (ownsStore) {
            try {
                store.close();
            } catch (SQLException e) {
                throw SteptraceException.internal("closing the store " + store.path() + " failed", e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "Steptrace store " + store.path();
    }

    // ---- internals ----

    void forget(Capture c) {
        synchronized (open) {
            open.remove(c);
        }
    }

    private Map<Integer, CaptureInfo> captureMap() {
        Map<Integer, CaptureInfo> out = new LinkedHashMap<>();
        try (Statement s = store.connection().createStatement(); ResultSet rs = s.executeQuery("""
                SELECT c.capture_id, c.name, c.path, count(*) AS files,
                       string_agg(DISTINCT f.rank::VARCHAR, ',') AS ranks,
                       count(*) FILTER (WHERE f.status = 'partial') AS partial,
                       coalesce(sum(f.n_kernel), 0)::BIGINT AS kernels
                FROM captures c JOIN capture_files m ON m.capture_id = c.capture_id JOIN files f ON f.file_id = m.file_id
                GROUP BY c.capture_id, c.name, c.path ORDER BY c.path, c.name
                """)) {
            while (rs.next()) {
                String ranks = rs.getString(5);
                List<Integer> r = ranks == null || ranks.isEmpty() ? List.of()
                        : java.util.Arrays.stream(ranks.split(",")).map(Integer::valueOf).sorted().toList();
                out.put(rs.getInt(1), new CaptureInfo(rs.getInt(1), rs.getString(2), Path.of(rs.getString(3)),
                        rs.getInt(4), r, rs.getInt(6), rs.getLong(7)));
            }
        } catch (SQLException e) {
            throw SteptraceException.internal("listing the captures failed: " + Messages.firstLine(e.getMessage()), e);
        }
        return out;
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            // a progress display that fails to stop is not worth failing the ingest for
        }
    }
}
