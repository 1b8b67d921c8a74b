package dev.steptrace.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import dev.steptrace.common.FileKind;
import dev.steptrace.common.Messages;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.duckdb.DuckDBConnection;

/**
 * The DuckDB database every command reads and ingest writes: schema from {@code schema.sql}
 * (documented in docs/schema.md), views from {@code views.sql}.
 */
public final class Store implements AutoCloseable {
    private static final String MEMORY_LIMIT_VARIABLE = "STEPTRACE_MEMORY_LIMIT";
    /** How DuckDB's errors of a query that needs more than its memory limit begin. */
    private static final String DUCKDB_OUT_OF_MEMORY = "Out of Memory Error";
    /** DuckDB's out-of-memory error when what it spills has filled the room it may use on disk. */
    private static final String DUCKDB_TEMP_FULL = "max_temp_directory_size";
    /** A size as DuckDB's memory_limit takes it: 512MB, 1.5GB, 2GiB, 1G. */
    private static final Pattern SIZE = Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*([KMGT](?:i?B)?)\\s*",
            Pattern.CASE_INSENSITIVE);
    /** What the operating system says of a full disk (or a quota), in DuckDB's errors. */
    private static final Pattern DUCKDB_DISK_FULL = Pattern.compile("No space left on device|Disk quota exceeded");
    private static final String DISK_FULL = "its disk is full";
    public static final String DEFAULT_FILE = "steptrace.duckdb";
    public static final String ENV_DB = "STEPTRACE_DB";
    /** Bumped whenever schema.sql changes. */
    static final String SCHEMA_VERSION = "8";
    /**
     * Older versions whose stores are upgraded in place: version 7 added {@code files.file_stat}, version 8 the
     * tables of the step time, the critical path and the kernels' launch contexts (analysis tables: a store's
     * kept analyses are of an older build and made again, so they start empty).
     */
    private static final List<String> UPGRADED_VERSIONS = List.of("6", "7");
    private static boolean upgraded(String version) {
        return version != null && UPGRADED_VERSIONS.contains(version);
    }

    private static final List<String> TABLES_OF_VERSION_8 = List.of("critical_path_base", "host_syncs", "idle_cpu_ops",
            "kernel_contexts", "step_compile_events", "step_time_base", "step_times");

    private final Path path;
    private final DuckDBConnection connection;
    private final boolean readOnly;
    private String whyReadOnly;
    private final BufferAllocator allocator = new RootAllocator();

    /**
     * DuckDB's memory limit: {@code $STEPTRACE_MEMORY_LIMIT}, else 512 MB. DuckDB's default (80% of RAM)
     * would let a large ingest grow far past steptrace's 1 GB budget.
     */
    public static String memoryLimit() {
        return System.getenv().getOrDefault(MEMORY_LIMIT_VARIABLE, "512MB");
    }

    /**
     * Runs {@code work} on a store's connection with DuckDB's memory limit (its database's, every connection's) at
     * {@code factor} times the one stores are opened with ({@link #memoryLimit}), then sets that back; with the limit
     * as it is where that is not a size of the form {@code 512MB}.
     */
    public static void withMemoryLimitScaled(Connection c, double factor, Sql.Work work) throws SQLException {
        String limit = memoryLimit();
        String scaled = scaled(limit, factor);
        if (scaled == null) {
            work.run();
            return;
        }
        Sql.exec(c, "SET memory_limit = '" + scaled + "'");
        try {
            work.run();
        } finally {
            Sql.exec(c, "SET memory_limit = '" + limit.replace("'", "''") + "'");
        }
    }

    /** A size as DuckDB's memory_limit takes it, times {@code factor}, in its unit; null if it is no such size. */
    private static String scaled(String size, double factor) {
        Matcher m = SIZE.matcher(size);
        return m.matches() ? BigDecimal.valueOf(Double.parseDouble(m.group(1)) * factor).stripTrailingZeros()
                .toPlainString() + m.group(2) : null;
    }

    /**
     * What to say when DuckDB ran out of its memory limit behind {@code failure} (its error, or a cause of
     * it), or null when it did not: the limit, and how to raise it.
     */
    public static String outOfMemory(Throwable failure) {
        return outOfMemory(failure, memoryLimit());
    }

    static String outOfMemory(Throwable failure, String limit) {
        for (Throwable c = failure; c != null; c = c.getCause()) {
            if (c.getMessage() != null && c.getMessage().contains(DUCKDB_OUT_OF_MEMORY)) {
                if (c.getMessage().contains(DUCKDB_TEMP_FULL)) {
                    return "DuckDB ran out of room for its temporary files (at most 90% of the disk space free"
                            + " beside the store, or in the temporary directory for a read-only store): free disk space there";
                }
                String twice = scaled(limit, 2);
                String more = twice == null ? "" : "=" + twice;
                return "DuckDB ran out of memory (its limit: " + limit + "): give it more with "
                        + MEMORY_LIMIT_VARIABLE + more + ", if the machine has it";
            }
        }
        return null;
    }

    private Store(Path path, DuckDBConnection connection, boolean readOnly) {
        this.path = path;
        this.connection = connection;
        this.readOnly = readOnly;
        this.whyReadOnly = readOnly ? "read-only" : null;
    }

    /** The --db option if given, else $STEPTRACE_DB, else steptrace.duckdb in the working directory. */
    public static Path resolve(Path explicit) {
        if (explicit != null) {
            return explicit;
        }
        String env = System.getenv(ENV_DB);
        return Path.of(env != null && !env.isBlank() ? env : DEFAULT_FILE);
    }

    /**
     * Opens (creating if needed) the store at {@code file}. A store that cannot be written (a read-only
     * mount, no write permission on it or its directory) is opened read-only: see {@link #readOnly()}.
     */
    public static Store open(Path file) throws StoreException {
        Path abs = file.toAbsolutePath().normalize();
        return open(abs, Files.exists(abs) && !writable(abs));
    }

    /** Opens an existing store read-only: nothing in it can change (what {@code query} does by default). */
    public static Store openReadOnly(Path file) throws StoreException {
        return open(file.toAbsolutePath().normalize(), true);
    }

    private static Store open(Path abs, boolean readOnly) throws StoreException {
        refuseNonDatabase(abs);
        try {
            if (!readOnly && abs.getParent() != null) {
                Files.createDirectories(abs.getParent());
            }
            Properties props = new Properties();
            props.setProperty("memory_limit", memoryLimit());
            props.setProperty("preserve_insertion_order", "false");
            if (readOnly) {
                props.setProperty("duckdb.read_only", "true");
                // DuckDB spills beside the database by default: not possible where it cannot write.
                props.setProperty("temp_directory", Path.of(System.getProperty("java.io.tmpdir"))
                        .resolve("steptrace-" + ProcessHandle.current().pid() + ".tmp").toString());
            }
            loadDuckDb();
            DuckDBConnection c = DuckDb.connect(abs, props);
            Store store = new Store(abs, c, readOnly);
            try {
                store.migrate();
            } catch (SQLException e) {
                store.close();
                if (!readOnly && diskFull(e) && Files.exists(abs)) {
                    // Everything it holds can still be read; only what it would write has no room.
                    Store full = open(abs, true);
                    full.whyReadOnly = DISK_FULL;
                    return full;
                }
                throw e;
            } catch (StoreException | RuntimeException e) {
                store.close();
                throw e;
            }
            return store;
        } catch (ClassNotFoundException | ExceptionInInitializerError | NoClassDefFoundError | UnsatisfiedLinkError e) {
            // DuckDB's JNI library sits beside steptrace.jar (analyzer/pom.xml says why): a jar copied alone lacks it.
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            throw new StoreException("cannot load DuckDB's native library: " + Messages.firstLine(String.valueOf(root.getMessage()))
                    + " (it belongs beside steptrace.jar, as `mvn package` leaves it in analyzer/target/)", e);
        } catch (SQLException e) {
            throw new StoreException("cannot open the store " + abs + ": " + Messages.firstLine(e.getMessage()), e);
        } catch (IOException e) {
            throw new StoreException("cannot create the directory of the store " + abs + ": " + Messages.io(e), e);
        }
    }

    /**
     * Refuses, before DuckDB opens it, a {@code --db} that is not a DuckDB database file: DuckDB would wait
     * for ever on a FIFO, and open another engine's database (an SQLite file) through an extension.
     */
    private static void refuseNonDatabase(Path abs) throws StoreException {
        String special = FileKind.notRegular(abs);
        if (special != null) {
            throw new StoreException(abs + " is " + special + ", not a DuckDB database: pass a store file as --db", null);
        }
        if (!Files.isReadable(abs)) {
            return;   // a new store; or DuckDB says why it cannot read it
        }
        byte[] head = new byte[16];
        int n = 0;
        try (InputStream in = Files.newInputStream(abs)) {
            n = in.readNBytes(head, 0, head.length);
        } catch (IOException e) {
            return;
        }
        // DuckDB's file header: an 8-byte checksum, then its magic bytes.
        if (n >= 12 && new String(head, 8, 4, StandardCharsets.ISO_8859_1).equals("DUCK")) {
            return;
        }
        String what = n == 0 ? "an empty file"
                : new String(head, 0, n, StandardCharsets.ISO_8859_1).startsWith("SQLite format 3") ? "an SQLite database"
                : "its first bytes are not a DuckDB database's";
        throw new StoreException(abs + " is not a DuckDB database (" + what + "): it was left as it is; pass a"
                + " steptrace store, or a new file, as --db", null);
    }

    private static boolean writable(Path abs) {
        return Files.isWritable(abs) && (abs.getParent() == null || Files.isWritable(abs.getParent()));
    }

    /**
     * Loads DuckDB's JNI library (once per JVM). When it is missing, DuckDB prints a stack trace of its
     * first attempt before it throws; that goes nowhere here, the exception becomes our one-line message.
     */
    private static synchronized void loadDuckDb() throws ClassNotFoundException {
        PrintStream stderr = System.err;
        System.setErr(new PrintStream(OutputStream.nullOutputStream()));
        try {
            Class.forName("org.duckdb.DuckDBNative");
        } finally {
            System.setErr(stderr);
        }
    }

    /**
     * Checks that the database is a steptrace store of this schema version (or empty, or of the version before,
     * upgraded here) before anything is written to it, then creates what is missing and replaces the views, in
     * one transaction: another program's database, or a store of another version, is refused untouched.
     */
    private void migrate() throws SQLException, StoreException {
        try (Statement s = connection.createStatement()) {
            String version = schemaVersion(s);
            if (version == null) {
                List<String> foreign = relations(s);
                if (!foreign.isEmpty()) {
                    throw new StoreException(path + " is a DuckDB database but not a steptrace store (it holds "
                            + String.join(", ", foreign.subList(0, Math.min(5, foreign.size())))
                            + (foreign.size() > 5 ? ", ..." : "") + "): it was left as it is; pass another --db", null);
                }
            } else if (!SCHEMA_VERSION.equals(version) && !upgraded(version)) {
                throw new StoreException("the store " + path + " has schema version " + version
                        + " but this steptrace uses " + SCHEMA_VERSION
                        + ": remove it (it is rebuilt from the traces) or pass another --db", null);
            }
            if (version != null) {
                checkShape(s, version);
            }
            if (readOnly) {
                if (version == null) {
                    throw new StoreException("the store " + path + " cannot be written (read-only) and holds no"
                            + " steptrace data yet", null);
                }
                if (upgraded(version)) {
                    // Version 8's tables, empty, in this connection's temp schema (the store cannot be upgraded).
                    String schema = resource("schema.sql");
                    for (String table : TABLES_OF_VERSION_8) {
                        Matcher m = Pattern.compile("CREATE TABLE IF NOT EXISTS " + table + "\\s*\\(.*?\\n\\);",
                                Pattern.DOTALL).matcher(schema);
                        if (!m.find()) {
                            throw new IllegalStateException("schema.sql defines no table " + table);
                        }
                        s.execute(m.group().replace("CREATE TABLE IF NOT EXISTS", "CREATE TEMP TABLE"));
                    }
                }
                if ("6".equals(version)) {
                    // Read as it is, with the column version 7 added, empty: a view in this connection's temp
                    // schema, found before the store's own table. Only this connection has it: the one
                    // StoreFiles reads files through.
                    String files = Sql.identifier(Sql.currentDatabase(connection)) + ".main.files";
                    s.execute("CREATE TEMP VIEW files AS SELECT *, NULL::VARCHAR AS file_stat FROM " + files);
                }
                return;
            }
            Sql.inTransaction(connection, () -> {
                if ("6".equals(version)) {
                    s.execute("ALTER TABLE files ADD COLUMN file_stat VARCHAR");
                }
                if (upgraded(version)) {
                    s.execute("UPDATE store_info SET value = '" + SCHEMA_VERSION + "' WHERE key = 'schema_version'");
                }
                s.execute(resource("schema.sql"));
                if (version == null) {
                    s.execute("INSERT INTO store_info VALUES ('schema_version', '" + SCHEMA_VERSION + "')");
                }
                s.execute(resource("views.sql"));
            });
        }
    }

    /** Each table of schema.sql, its columns in order with their types: what a store of this version holds. */
    private static Map<String, Map<String, String>> schemaShape;

    private static synchronized Map<String, Map<String, String>> schemaShape() throws SQLException {
        if (schemaShape == null) {
            try (Connection c = DuckDb.inMemory(); Statement s = c.createStatement()) {
                s.execute(resource("schema.sql"));
                schemaShape = columns(s);
            }
        }
        return schemaShape;
    }

    /** The tables of the database's main schema, each with its columns in order and their types. */
    private static Map<String, Map<String, String>> columns(Statement s) throws SQLException {
        Map<String, Map<String, String>> out = new TreeMap<>();
        try (ResultSet rs = s.executeQuery("""
                SELECT c.table_name, c.column_name, c.data_type
                FROM duckdb_columns() c
                JOIN duckdb_tables() t ON t.database_name = c.database_name AND t.schema_name = c.schema_name
                    AND t.table_name = c.table_name AND NOT t.temporary
                WHERE c.database_name = current_database() AND c.schema_name = 'main'
                ORDER BY c.table_name, c.column_index""")) {
            while (rs.next()) {
                out.computeIfAbsent(rs.getString(1), t -> new LinkedHashMap<>()).put(rs.getString(2), rs.getString(3));
            }
        }
        return out;
    }

    /**
     * Refuses a store changed outside steptrace (a crafted or shared store; a statement of {@code query --write})
     * in a way its readers cannot take, before anything reads or recreates it, saying what is wrong: a table of
     * the schema dropped, a column dropped or of another type, or rows of a capture's files or of its kept
     * analysis per rank and step without their rank. Tables and columns of its own are left alone.
     */
    private void checkShape(Statement s, String version) throws SQLException, StoreException {
        Map<String, Map<String, String>> expected = schemaShape();
        Map<String, Map<String, String>> actual = columns(s);
        List<String> wrong = new ArrayList<>();
        List<String> ranked = new ArrayList<>();
        boolean older = upgraded(version);
        for (Map.Entry<String, Map<String, String>> table : expected.entrySet()) {
            Map<String, String> has = actual.get(table.getKey());
            if (has == null) {
                if (!(older && TABLES_OF_VERSION_8.contains(table.getKey()))) {
                    wrong.add("it has no table " + table.getKey());
                }
                continue;
            }
            for (Map.Entry<String, String> column : table.getValue().entrySet()) {
                String type = has.get(column.getKey());
                if (type == null && !("6".equals(version) && table.getKey().equals("files") && column.getKey().equals("file_stat"))) {
                    wrong.add("its table " + table.getKey() + " has no column " + column.getKey());
                } else if (type != null && !type.equals(column.getValue())) {
                    wrong.add(table.getKey() + "." + column.getKey() + " is " + type + ", not " + column.getValue());
                }
            }
            if (has.keySet().containsAll(List.of("capture_id", "rank"))
                    && (table.getKey().equals("files") || has.containsKey("step"))) {
                ranked.add(table.getKey());
            }
        }
        if (wrong.isEmpty() && !ranked.isEmpty()) {
            StringBuilder q = new StringBuilder();
            for (String t : ranked) {
                q.append(q.length() == 0 ? "" : " UNION ALL ").append("(SELECT '").append(t).append("' FROM ")
                        .append(Sql.identifier(t)).append(" WHERE rank IS NULL AND capture_id IS NOT NULL LIMIT 1)");
            }
            try (ResultSet rs = s.executeQuery(q + " ORDER BY 1")) {
                while (rs.next()) {
                    wrong.add("its table " + rs.getString(1) + " holds rows of a capture without their rank");
                }
            }
        }
        if (!wrong.isEmpty()) {
            throw new StoreException("the store " + path + " was changed outside steptrace: "
                    + String.join("; ", wrong.subList(0, Math.min(3, wrong.size()))) + (wrong.size() > 3 ? "; ..." : "")
                    + ": remove it (it is rebuilt from the traces) or pass another --db", null);
        }
    }

    /** The store's schema version, or null when the database has no steptrace bookkeeping. */
    private static String schemaVersion(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT 1 FROM duckdb_tables() WHERE database_name = current_database()"
                + " AND schema_name = 'main' AND table_name = 'store_info'")) {
            if (!rs.next()) {
                return null;
            }
        }
        try (ResultSet rs = s.executeQuery("SELECT value FROM store_info WHERE key = 'schema_version'")) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    /** The tables and views of the database (its own, not DuckDB's), by name. */
    private static List<String> relations(Statement s) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = s.executeQuery("""
                SELECT schema_name || '.' || table_name FROM duckdb_tables()
                WHERE database_name = current_database() AND NOT temporary
                UNION ALL
                SELECT schema_name || '.' || view_name FROM duckdb_views()
                WHERE database_name = current_database() AND NOT internal AND NOT temporary
                ORDER BY 1""")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /**
     * True when the store was opened read-only (on request, or because it cannot be written): nothing
     * can be loaded or kept in it, everything already in it can be read.
     */
    public boolean readOnly() {
        return readOnly;
    }

    /** Why the store cannot be written, for messages ("cannot be written (read-only)"): read-only, or its disk full. */
    public String whyReadOnly() {
        return whyReadOnly;
    }

    /**
     * Writes what the store's log holds into its file, which DuckDB does when the store closes, silently
     * when it cannot: null when done (or nothing to do), else why not, in one line. What was committed stays
     * in the log (the {@code .wal} beside the store) and is read from there.
     */
    public String checkpoint() {
        if (readOnly) {
            return null;
        }
        try (Statement s = connection.createStatement()) {
            s.execute("CHECKPOINT");
            return null;
        } catch (SQLException e) {
            return diskFull(e) ? DISK_FULL : Messages.firstLine(Messages.sqlError(e.getMessage()));
        }
    }

    /** Whether a failure of DuckDB's, or one it hides behind another (a rollback's), is a full disk. */
    public static boolean diskFull(Throwable failure) {
        for (Throwable c = failure; c != null; c = c.getCause()) {
            if (c.getMessage() != null && DUCKDB_DISK_FULL.matcher(c.getMessage()).find()) {
                return true;
            }
            for (Throwable s : c.getSuppressed()) {
                if (diskFull(s)) {
                    return true;
                }
            }
        }
        return false;
    }

    public Path path() {
        return path;
    }

    /** The store's main connection (auto-commit). */
    public Connection connection() {
        return connection;
    }

    /** A further connection to the same database, for a worker thread's own transaction. */
    public Connection newConnection() throws SQLException {
        return connection.duplicate();
    }

    /** Off-heap memory for Arrow batches. */
    public BufferAllocator allocator() {
        return allocator;
    }

    @Override
    public void close() throws SQLException {
        try {
            connection.close();
        } finally {
            allocator.close();
        }
    }

    private static String resource(String name) {
        try (InputStream in = Store.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read resource " + name, e);
        }
    }
}
