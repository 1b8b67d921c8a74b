package dev.steptrace.analysis;

import dev.steptrace.store.QueryFile;
import dev.steptrace.store.Sql;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One analysis stage: a SQL file beside this class ({@code NN-name.sql}, listed in docs/architecture.md,
 * "Analysis stages"), its statements run in order on the analysis connection. A stage names the tables it
 * reads and writes in its header; Java only chooses which stages run, in which order, with which
 * parameters. A parameter is a DuckDB variable, read in the file as {@code getvariable('name')}, so a
 * stage runs as it is in the DuckDB shell too: {@code SET VARIABLE name = value;} then {@code .read} it.
 *
 * <p>A statement that restricts its rows with {@code in_batch(file_id)} (macros.sql) runs once per batch
 * of the capture's files, in file order, with the variables {@code batch_first} and {@code batch_last} set
 * to the batch's first and last file ids. The batches are the variable {@code file_batches} (stage 00:
 * consecutive files of about {@link CaptureAnalysis#BATCH_OPS} GPU operations together), else each file of
 * {@code t_files} alone. A {@code CREATE OR REPLACE TEMP TABLE name AS} makes the table from the first
 * batch and is an {@code INSERT INTO name} for each later one; an INSERT, UPDATE or DELETE runs as it is.
 * Such a statement is rank-local (it joins and partitions by file), so its rows are those of one run over
 * every file; a batch at a time keeps its sorts and hash tables the size of a batch's, which a capture of
 * many large files needs (docs/performance.md, "Why the code is as it is"). With the variables unset,
 * as in the shell, it runs once over every file.
 *
 * <p>On a connection whose default database is a {@link WorkDatabase} (an analysis of a writable store), a
 * {@code CREATE OR REPLACE TEMP TABLE} makes its table there instead, and the database is checkpointed after
 * it (after each batch, for a statement run per batch), which compresses the table; in the shell and in the
 * stage tests it is a temp table, as written.
 *
 * <p>A query file ({@code queries/name.sql}, docs/architecture.md, "Queries of the kept analysis") is one
 * SELECT written the same way, run by {@link QueryFile}.
 */
public final class SqlStage {
    /** macros.sql: defined before every stage's statements, so a stage run alone (a stage test) has them. */
    private static final SqlStage MACROS = load("macros");
    private static final Pattern PARAMETER = Pattern.compile("getvariable\\('([a-z_][a-z0-9_]*)'\\)");
    private static final String PER_BATCH = "in_batch(";
    /** How a stage makes a table: a temp table, or a table of the connection's work database (WorkDatabase). */
    private static final String MAKES_TABLE = "(?is)CREATE OR REPLACE TEMP TABLE ";
    private static final Pattern TEMP_TABLE = Pattern.compile(MAKES_TABLE);
    private static final Pattern CREATE_AS = Pattern.compile(MAKES_TABLE + "(\\w+) AS\\s");
    private static final Pattern CHANGE = Pattern.compile("(?is)(INSERT|UPDATE|DELETE)\\s.*");

    private final String name;
    private final List<String> statements;

    private SqlStage(String name, List<String> statements) {
        this.name = name;
        this.statements = statements;
    }

    /** The stage {@code name} (the file name without {@code .sql}), from the class path. */
    public static SqlStage load(String name) {
        String resource = name + ".sql";
        try (InputStream in = SqlStage.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no analysis stage " + resource);
            }
            return of(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A stage named {@code name} of these statements (a stage file's text). */
    static SqlStage of(String name, String text) {
        return new SqlStage(name, QueryFile.statements(text));
    }

    /** Runs the stage {@code name} without parameters. */
    static void run(Connection c, String name) throws SQLException {
        load(name).run(c, Map.of());
    }

    /**
     * Sets each parameter as a DuckDB variable ({@code SET VARIABLE name = value}: what the file reads
     * with {@code getvariable('name')}), then runs every statement.
     */
    public void run(Connection c, Map<String, ?> parameters) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String sql : statements) {
                Matcher m = PARAMETER.matcher(sql);
                while (m.find()) {
                    value(parameters, m);
                }
            }
            for (Map.Entry<String, ?> p : parameters.entrySet()) {
                s.execute("SET VARIABLE " + p.getKey() + " = " + QueryFile.literal(p.getValue()));
            }
            defineMacros(c);
            // In a transaction (the keep step) tables are made where the statement says: one transaction writes
            // one database, and a checkpoint needs none open.
            String work = c.getAutoCommit() ? WorkDatabase.of(c) : null;
            for (String sql : statements) {
                try {
                    String made = madeIn(work, sql);
                    if (sql.contains(PER_BATCH)) {
                        runPerBatch(c, sql, made, made.equals(sql) ? null : work);
                    } else {
                        s.execute(made);
                    }
                    if (!made.equals(sql)) {
                        WorkDatabase.checkpoint(c, work);
                    }
                } catch (SQLException e) {
                    throw new SQLException("analysis stage " + name + ": " + e.getMessage(), e);
                }
            }
        }
    }

    /**
     * Fills working table {@code table} with rows Java computed (what only Java knows: which annotation names are
     * steps, the taxonomy's context rules, the work models), each row its columns in the table's order.
     */
    static void fill(Connection c, String table, List<List<Object>> rows) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        String marks = String.join(", ", java.util.Collections.nCopies(rows.get(0).size(), "?"));
        try (java.sql.PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " VALUES (" + marks + ")")) {
            for (List<Object> row : rows) {
                for (int i = 0; i < row.size(); i++) {
                    ps.setObject(i + 1, row.get(i));
                }
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** How many rows working table {@code table} has: between stages, what chooses the next one. */
    static long rows(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The number query file {@code work/NAME} gives (one row, one column) over the working tables. */
    static long count(Connection c, String name, Map<String, ?> parameters) throws SQLException {
        long[] n = new long[1];
        QueryFile.load("work/" + name).run(c, parameters, rs -> n[0] = rs.getLong(1));
        return n[0];
    }

    /** The first column of every row query file {@code work/NAME} gives over the working tables. */
    static List<String> strings(Connection c, String name) throws SQLException {
        List<String> out = new ArrayList<>();
        QueryFile.load("work/" + name).run(c, Map.of(), rs -> out.add(rs.getString(1)));
        return out;
    }

    /** Every row of working table {@code table}, its {@code columns} in that order, handed to {@code rows}. */
    static void read(Connection c, String table, List<String> columns, Sql.Rows rows) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT " + String.join(", ", columns) + " FROM " + table)) {
            while (rs.next()) {
                rows.row(rs);
            }
        }
    }

    /** Defines the macros every stage may use (macros.sql) on the connection. */
    static void defineMacros(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String sql : MACROS.statements) {
                s.execute(sql);
            }
        }
    }

    /** The statement as run: with a work database, a temp table it makes is made there instead. */
    private static String madeIn(String work, String sql) {
        Matcher temp = TEMP_TABLE.matcher(sql);
        return work != null && temp.lookingAt() ? "CREATE OR REPLACE TABLE " + sql.substring(temp.end()) : sql;
    }

    /**
     * Runs {@code sql} once per batch: {@code made} (the statement as run) for the first, then its appends. A
     * table made in a work database ({@code work}, else null) is checkpointed after each batch, which compresses
     * the batch's rows while they are in memory: checkpointed once at the end, the rows of a capture larger than
     * DuckDB's memory limit were spilled uncompressed and read back to be compressed (docs/performance.md).
     */
    private void runPerBatch(Connection c, String sql, String made, String work) throws SQLException {
        Matcher create = CREATE_AS.matcher(sql);
        String append;
        if (create.lookingAt()) {
            append = "INSERT INTO " + create.group(1) + " " + sql.substring(create.end());
        } else if (CHANGE.matcher(sql).matches()) {
            append = sql;
        } else {
            // Any other statement, run as it is once per batch, would keep the last batch's rows alone.
            throw new IllegalStateException("analysis stage " + name + ": a statement with in_batch is a"
                    + " CREATE OR REPLACE TEMP TABLE ... AS, an INSERT, an UPDATE or a DELETE: " + sql);
        }
        // DuckDB's driver closes a statement whose execution failed: the batches run on one of their own, and
        // the variables are reset on another, so that the failure itself is what the caller sees.
        Throwable failure = null;
        try (Statement s = c.createStatement()) {
            List<long[]> batches = batches(c);
            if (batches.size() < 2) {
                s.execute(made);
                return;
            }
            for (int i = 0; i < batches.size(); i++) {
                s.execute("SET VARIABLE batch_first = " + batches.get(i)[0]);
                s.execute("SET VARIABLE batch_last = " + batches.get(i)[1]);
                s.execute(i == 0 ? made : append);
                if (work != null && i < batches.size() - 1) {
                    WorkDatabase.checkpoint(c, work);
                }
            }
        } catch (SQLException | RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            try (Statement reset = c.createStatement()) {
                reset.execute("RESET VARIABLE batch_first");
                reset.execute("RESET VARIABLE batch_last");
            } catch (SQLException resetFailed) {
                if (failure == null) {
                    throw resetFailed;
                }
                failure.addSuppressed(resetFailed);
            }
        }
    }

    /** What a Java step does for one batch of the capture's files: those from file id {@code first} to {@code last}. */
    @FunctionalInterface
    interface Batch {
        void run(long first, long last) throws SQLException;
    }

    /**
     * Runs {@code batch} once per batch of the capture's files, in file order, the connection's work database
     * checkpointed after each, as after each batch of a statement run per batch: for a Java step that fills working
     * tables a batch at a time.
     */
    static void forEachBatch(Connection c, Batch batch) throws SQLException {
        String work = WorkDatabase.of(c);
        for (long[] b : batches(c)) {
            batch.run(b[0], b[1]);
            if (work != null) {
                WorkDatabase.checkpoint(c, work);
            }
        }
    }

    /** The batches as [first file id, last file id]: stage 00's file_batches, else each file of t_files alone. */
    private static List<long[]> batches(Connection c) throws SQLException {
        List<long[]> batches = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT b[1], b[2] FROM (SELECT unnest(coalesce(getvariable('file_batches'),"
                     + " (SELECT list([file_id, file_id] ORDER BY file_id) FROM t_files))) AS b) ORDER BY 1")) {
            while (rs.next()) {
                batches.add(new long[] {rs.getLong(1), rs.getLong(2)});
            }
        }
        return batches;
    }

    private Object value(Map<String, ?> parameters, Matcher m) {
        if (!parameters.containsKey(m.group(1))) {
            throw new IllegalArgumentException("analysis stage " + name + ": no value for " + m.group());
        }
        return parameters.get(m.group(1));
    }
}
