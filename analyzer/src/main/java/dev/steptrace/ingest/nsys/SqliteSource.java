package dev.steptrace.ingest.nsys;

import dev.steptrace.store.Sql;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
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

    private final Path file;
    private final Connection connection;
    private final Map<String, Set<String>> tables = new HashMap<>();

    private SqliteSource(Path file, Connection connection) {
        this.file = file;
        this.connection = connection;
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
             ResultSet rs = st.executeQuery("SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p"
                     + " WHERE m.type IN ('table', 'view') ORDER BY m.name, p.cid")) {
            while (rs.next()) {
                s.tables.computeIfAbsent(rs.getString(1), k -> new LinkedHashSet<>()).add(rs.getString(2));
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
            if (col.text()) {
                sql.append(present ? Sql.identifier(col.name()) : "NULL");
            } else {
                sql.append(present ? "ifnull(" + Sql.identifier(col.name()) + ", " + Rows.NULL + ")" : String.valueOf(Rows.NULL));
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
        try {
            PreparedStatement ps = connection.prepareStatement(sql.toString());
            if (ps instanceof CoreStatement cs && connection instanceof SQLiteConnection sc) {
                return new NativeRows(ps, sc.getDatabase(), cs.pointer.safeRunLong((db, ptr) -> ptr), table);
            }
            return new JdbcRows(ps, ps.executeQuery(), table);
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

    /** Steps the driver's native statement directly. */
    private static final class NativeRows implements Rows {
        private final PreparedStatement statement;
        private final DB db;
        private final long ptr;
        private final String table;
        private boolean done;

        NativeRows(PreparedStatement statement, DB db, long ptr, String table) {
            this.statement = statement;
            this.db = db;
            this.ptr = ptr;
            this.table = table;
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
                return db.column_long(ptr, col);
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
        private final String table;

        JdbcRows(PreparedStatement statement, ResultSet rs, String table) {
            this.statement = statement;
            this.rs = rs;
            this.table = table;
        }

        @Override
        public boolean next() throws IOException {
            try {
                return rs.next();
            } catch (SQLException e) {
                throw new IOException("reading " + table + ": " + e.getMessage(), e);
            }
        }

        @Override
        public long getLong(int col) throws IOException {
            try {
                return rs.getLong(col + 1);
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
