package dev.steptrace.ingest.nsys;

import dev.steptrace.store.Sql;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteOpenMode;
import org.sqlite.core.CoreStatement;
import org.sqlite.core.DB;

/**
 * An {@code nsys export --type sqlite} database, read through the xerial sqlite-jdbc driver.
 *
 * <p>The database is opened read-only and {@code immutable}: no lock, no journal, nothing written
 * beside it, so a capture on a read-only file system loads too. NULLs become {@link Rows#NULL} in the
 * query itself ({@code ifnull}), so a row costs one native call per column.
 *
 * <p>Rows are stepped through the driver's native statement handle ({@code DB.step} /
 * {@code DB.column_long}, public methods of its {@code core} package) rather than through
 * {@code ResultSet}, whose per-value locking and bookkeeping cost about a third of the ingest time
 * of a kernel table. When the driver does not expose them (another driver version), the plain JDBC
 * path is used.
 */
public final class SqliteSource implements NsysSource {
    private static final int SQLITE_ROW = 100;
    private static final int SQLITE_DONE = 101;
    static final byte[] SQLITE_MAGIC = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);
    /** The first bytes of a write-ahead log (either byte order of its checksums) and of a hot rollback journal. */
    private static final byte[] WAL_MAGIC = {0x37, 0x7f, 0x06, (byte) 0x82};
    private static final byte[] WAL_MAGIC_CHECKPOINTED = {0x37, 0x7f, 0x06, (byte) 0x83};
    private static final byte[] JOURNAL_MAGIC = {(byte) 0xd9, (byte) 0xd5, 0x05, (byte) 0xf9, 0x20, (byte) 0xa1, 0x63,
            (byte) 0xd7};
    /** SQLite's files beside a database, by their suffix. */
    private static final Map<String, String> BESIDE = Map.of("-wal", "write-ahead log", "-shm",
            "write-ahead log index", "-journal", "rollback journal");
    /** What an integer column's text or blob reads as: no export column holds this value. */
    private static final long NOT_AN_INTEGER = Rows.NULL + 1;

    private final Path file;
    private final Connection connection;
    private final Map<String, Set<String>> tables = new HashMap<>();
    private final Set<String> views = new HashSet<>();

    private SqliteSource(Path file, Connection connection) {
        this.file = file;
        this.connection = connection;
    }

    /**
     * Null when the database's file holds all of it; else why not, for a refusal: changes still in its
     * write-ahead log, or a write cut short in its rollback journal. The database is opened immutable (nothing
     * written beside it), which would read it without them: events missing, or a half-written table.
     */
    static String pendingChanges(Path file) throws IOException {
        Path wal = file.resolveSibling(file.getFileName() + "-wal");
        if (startsWith(wal, WAL_MAGIC, WAL_MAGIC_CHECKPOINTED)) {
            return "SQLite database whose write-ahead log " + wal.getFileName() + " holds changes not yet in it (a"
                    + " database still open, or copied while open): open it once with sqlite3, which merges them, then"
                    + " ingest again";
        }
        Path journal = file.resolveSibling(file.getFileName() + "-journal");
        if (startsWith(journal, JOURNAL_MAGIC)) {
            return "SQLite database whose rollback journal " + journal.getFileName() + " holds a write cut short: open"
                    + " it once with sqlite3, which rolls it back, then ingest again";
        }
        return null;
    }

    /**
     * Null unless {@code file} is one of SQLite's files beside a database ({@code app.sqlite-wal}, {@code -shm},
     * {@code -journal}); else what it is, for its skipped line.
     */
    static String besideDatabase(Path file) throws IOException {
        String name = file.getFileName().toString();
        for (Map.Entry<String, String> e : BESIDE.entrySet()) {
            if (name.endsWith(e.getKey()) && name.length() > e.getKey().length()) {
                Path db = file.resolveSibling(name.substring(0, name.length() - e.getKey().length()));
                if (startsWith(db, SQLITE_MAGIC)) {
                    return "SQLite's " + e.getValue() + " of " + db.getFileName() + ", not a trace of its own";
                }
            }
        }
        return null;
    }

    private static boolean startsWith(Path file, byte[]... magics) throws IOException {
        if (!Files.isRegularFile(file)) {
            return false;
        }
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(16);
        }
        for (byte[] magic : magics) {
            if (head.length >= magic.length && Arrays.equals(head, 0, magic.length, magic, 0, magic.length)) {
                return true;
            }
        }
        return false;
    }

    public static SqliteSource open(Path file) throws IOException {
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(true);
        config.setOpenMode(SQLiteOpenMode.OPEN_URI);
        Connection c;
        try {
            // file:///...?immutable=1 (percent-encoded by toUri, so any file name works).
            c = config.createConnection("jdbc:sqlite:" + file.toAbsolutePath().toUri() + "?immutable=1");
        } catch (SQLException e) {
            throw new IOException("cannot open the SQLite database: " + e.getMessage(), e);
        }
        SqliteSource s = new SqliteSource(file, c);
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT m.name, p.name, m.type FROM sqlite_master m, pragma_table_info(m.name) p"
                     + " WHERE m.type IN ('table', 'view') ORDER BY m.name, p.cid")) {
            while (rs.next()) {
                s.tables.computeIfAbsent(rs.getString(1), k -> new LinkedHashSet<>()).add(rs.getString(2));
                if ("view".equals(rs.getString(3))) {
                    s.views.add(rs.getString(1));
                }
            }
        } catch (SQLException e) {
            s.close();
            throw new IOException("not a readable SQLite database: " + e.getMessage(), e);
        }
        return s;
    }

    @Override
    public Set<String> columns(String table) {
        return tables.getOrDefault(table, Set.of());
    }

    @Override
    public Rows scan(String table, List<Col> cols, Filter filter) throws IOException {
        Set<String> have = columns(table);
        if (have.isEmpty()) {
            return Rows.empty();
        }
        if (views.contains(table)) {
            // Its query runs when it is read, and may never end (a recursive view): nothing bounds a foreign one.
            throw new IOException(table + " is a view, not a table: nsys exports write tables (a view's query may"
                    + " run without end), not read");
        }
        StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 0; i < cols.size(); i++) {
            Col col = cols.get(i);
            if (i > 0) {
                sql.append(", ");
            }
            if (col.isPacked()) {
                sql.append(packed(col, have));
                continue;
            }
            boolean present = have.contains(col.name());
            String q = Sql.identifier(col.name());
            if (col.text()) {
                sql.append(present ? q : "NULL");
            } else {
                // SQLite keeps any value in any column: text where an integer belongs would read as 0.
                sql.append(present ? "CASE typeof(" + q + ") WHEN 'text' THEN " + NOT_AN_INTEGER + " WHEN 'blob' THEN "
                        + NOT_AN_INTEGER + " ELSE ifnull(" + q + ", " + Rows.NULL + ") END" : String.valueOf(Rows.NULL));
            }
        }
        if (cols.isEmpty()) {
            sql.append("1");
        }
        sql.append(" FROM ").append(Sql.identifier(table));
        if (filter != null) {
            if (!have.contains(filter.column())) {
                return Rows.empty();
            }
            sql.append(" WHERE ").append(Sql.identifier(filter.column())).append(" IN (");
            for (int i = 0; i < filter.values().length; i++) {
                sql.append(i > 0 ? ", " : "").append(filter.values()[i]);
            }
            sql.append(')');
        }
        Checked checked = new Checked(table, cols);
        try {
            PreparedStatement ps = connection.prepareStatement(sql.toString());
            if (ps instanceof CoreStatement cs && connection instanceof SQLiteConnection sc) {
                return new NativeRows(ps, sc.getDatabase(), cs.pointer.safeRunLong((db, ptr) -> ptr), checked);
            }
            return new JdbcRows(ps, ps.executeQuery(), checked);
        } catch (SQLException e) {
            throw new IOException("reading " + table + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            connection.close();
        } catch (SQLException e) {
            throw new IOException("closing " + file + ": " + e.getMessage(), e);
        }
    }

    /** {@code CASE WHEN every part fits THEN part0 | part1 << b0 | ... ELSE NULL-sentinel END}. */
    private static String packed(Col col, Set<String> have) {
        for (String part : col.parts()) {
            if (!have.contains(part)) {
                return String.valueOf(Rows.NULL);
            }
        }
        StringBuilder when = new StringBuilder();
        StringBuilder value = new StringBuilder();
        int shift = 0;
        for (int i = 0; i < col.parts().size(); i++) {
            String q = Sql.identifier(col.parts().get(i));
            long max = (1L << col.bits()[i]) - 1;
            when.append(i > 0 ? " AND " : "").append(q).append(" BETWEEN 0 AND ").append(max);
            value.append(i > 0 ? " | " : "").append(shift == 0 ? q : "(" + q + " << " + shift + ")");
            shift += col.bits()[i];
        }
        return "CASE WHEN " + when + " THEN " + value + " ELSE " + Rows.NULL + " END";
    }

    private static String describe(int rc) {
        switch (rc & 0xff) {
            case 10:
                return "disk I/O error";
            case 11:
                return "database disk image is malformed";
            case 13:
                return "database or disk is full";
            case 26:
                return "file is not a database";
            default:
                return "SQLite error code " + rc;
        }
    }

    /** A table's rows counted, and its integers checked to be integers. */
    private static final class Checked {
        final String table;
        final List<Col> cols;
        long row;

        Checked(String table, List<Col> cols) {
            this.table = table;
            this.cols = cols;
        }

        long integer(long value, int col) throws IOException {
            if (value == NOT_AN_INTEGER) {
                throw new IOException(table + "." + cols.get(col).name() + ": row " + row
                        + " holds text where an integer belongs (the export was altered or damaged)");
            }
            return value;
        }
    }

    /** Steps the driver's native statement directly. */
    private static final class NativeRows implements Rows {
        private final PreparedStatement statement;
        private final DB db;
        private final long ptr;
        private final Checked checked;
        private final String table;
        private boolean done;

        NativeRows(PreparedStatement statement, DB db, long ptr, Checked checked) {
            this.statement = statement;
            this.db = db;
            this.ptr = ptr;
            this.checked = checked;
            this.table = checked.table;
        }

        @Override
        public boolean next() throws IOException {
            if (done) {
                return false;
            }
            int rc;
            try {
                rc = db.step(ptr);
            } catch (SQLException e) {
                throw new IOException("reading " + table + ": " + e.getMessage(), e);
            }
            if (rc == SQLITE_ROW) {
                checked.row++;
                return true;
            }
            done = true;
            if (rc != SQLITE_DONE) {
                throw new IOException("reading " + table + ": " + describe(rc));
            }
            return false;
        }

        @Override
        public long getLong(int col) throws IOException {
            try {
                return checked.integer(db.column_long(ptr, col), col);
            } catch (SQLException e) {
                throw new IOException("reading " + table + ": " + e.getMessage(), e);
            }
        }

        @Override
        public String getString(int col) throws IOException {
            try {
                return db.column_text(ptr, col);
            } catch (SQLException e) {
                throw new IOException("reading " + table + ": " + e.getMessage(), e);
            }
        }

        @Override
        public void close() throws IOException {
            try {
                statement.close();
            } catch (SQLException e) {
                throw new IOException("reading " + table + ": " + e.getMessage(), e);
            }
        }
    }

    /** The portable path, for drivers whose internals differ. */
    private static final class JdbcRows implements Rows {
        private final PreparedStatement statement;
        private final ResultSet rs;
        private final Checked checked;
        private final String table;

        JdbcRows(PreparedStatement statement, ResultSet rs, Checked checked) {
            this.statement = statement;
            this.rs = rs;
            this.checked = checked;
            this.table = checked.table;
        }

        @Override
        public boolean next() throws IOException {
            try {
                checked.row++;
                return rs.next();
            } catch (SQLException e) {
                throw new IOException("reading " + table + ": " + e.getMessage(), e);
            }
        }

        @Override
        public long getLong(int col) throws IOException {
            try {
                return checked.integer(rs.getLong(col + 1), col);
            } catch (SQLException e) {
                throw new IOException("reading " + table + ": " + e.getMessage(), e);
            }
        }

        @Override
        public String getString(int col) throws IOException {
            try {
                return rs.getString(col + 1);
            } catch (SQLException e) {
                throw new IOException("reading " + table + ": " + e.getMessage(), e);
            }
        }

        @Override
        public void close() throws IOException {
            try {
                rs.close();
                statement.close();
            } catch (SQLException e) {
                throw new IOException("reading " + table + ": " + e.getMessage(), e);
            }
        }
    }
}
