package dev.steptrace.analysis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
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
 * <p>A statement that restricts its rows with {@code this_file(file_id)} (macros.sql) runs once per file
 * of {@code t_files}, in file order, with the variable {@code file_id} set to that file: a
 * {@code CREATE OR REPLACE TEMP TABLE name AS} makes the table from the first file and is an
 * {@code INSERT INTO name} for each later one. Such a statement is rank-local (it joins and partitions
 * by file), so its rows are those of one run over every file; one file at a time keeps its sorts and hash
 * tables the size of one file's, which a capture of many files needs (docs/performance.md, "The analysis
 * of many files"). With {@code file_id} unset, as in the shell, it runs once over every file.
 *
 * <p>A query file ({@code queries/name.sql}, docs/architecture.md, "Queries of the kept analysis") is
 * one SELECT written the same way, run by {@link #query}: its parameters are bound to the statement,
 * not set on the connection, so readers sharing a connection do not see each other's values.
 */
public final class SqlStage {
    /** macros.sql: defined before every stage's statements, so a stage run alone (a stage test) has them. */
    private static final SqlStage MACROS = load("macros");
    private static final Pattern PARAMETER = Pattern.compile("getvariable\\('([a-z_][a-z0-9_]*)'\\)");
    private static final String PER_FILE = "this_file(";
    private static final Pattern CREATE_AS = Pattern.compile("(?is)CREATE OR REPLACE TEMP TABLE (\\w+) AS\\s");

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
            return new SqlStage(name, split(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
                s.execute("SET VARIABLE " + p.getKey() + " = " + literal(p.getValue()));
            }
            for (String sql : MACROS.statements) {
                s.execute(sql);
            }
            for (String sql : statements) {
                try {
                    if (sql.contains(PER_FILE)) {
                        runPerFile(s, sql);
                    } else {
                        s.execute(sql);
                    }
                } catch (SQLException e) {
                    throw new SQLException("analysis stage " + name + ": " + e.getMessage(), e);
                }
            }
        }
    }

    private void runPerFile(Statement s, String sql) throws SQLException {
        List<Integer> files = new ArrayList<>();
        try (ResultSet rs = s.executeQuery("SELECT file_id FROM t_files ORDER BY file_id")) {
            while (rs.next()) {
                files.add(rs.getInt(1));
            }
        }
        if (files.size() < 2) {
            s.execute(sql);
            return;
        }
        Matcher create = CREATE_AS.matcher(sql);
        String append = create.lookingAt() ? "INSERT INTO " + create.group(1) + " " + sql.substring(create.end()) : sql;
        try {
            for (int i = 0; i < files.size(); i++) {
                s.execute("SET VARIABLE file_id = " + files.get(i));
                s.execute(i == 0 ? sql : append);
            }
        } finally {
            s.execute("RESET VARIABLE file_id");
        }
    }

    /** What a query hands each of its rows to. */
    @FunctionalInterface
    public interface Rows {
        void row(ResultSet rs) throws SQLException;
    }

    /**
     * Runs a query file, one SELECT, as a prepared statement: each {@code getvariable('name')} becomes a
     * parameter bound to {@code parameters.get(name)}; each row goes to {@code rows}.
     */
    public void query(Connection c, Map<String, ?> parameters, Rows rows) throws SQLException {
        if (statements.size() != 1) {
            throw new IllegalStateException("analysis query " + name + " holds " + statements.size() + " statements");
        }
        Matcher m = PARAMETER.matcher(statements.get(0));
        List<Object> values = new ArrayList<>();
        StringBuilder sql = new StringBuilder();
        while (m.find()) {
            values.add(value(parameters, m));
            m.appendReplacement(sql, "?");
        }
        m.appendTail(sql);
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            for (int i = 0; i < values.size(); i++) {
                ps.setObject(i + 1, values.get(i));
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.row(rs);
                }
            }
        }
    }

    private Object value(Map<String, ?> parameters, Matcher m) {
        if (!parameters.containsKey(m.group(1))) {
            throw new IllegalArgumentException("analysis stage " + name + ": no value for " + m.group());
        }
        return parameters.get(m.group(1));
    }

    private static String literal(Object value) {
        if (value instanceof Integer || value instanceof Long || value instanceof Boolean) {
            return value.toString();
        }
        if (value instanceof Double d && Double.isFinite(d)) {
            return d + "::DOUBLE";
        }
        if (value instanceof String text) {
            return "'" + text.replace("'", "''") + "'";
        }
        if (value instanceof List<?> list) {
            StringBuilder sb = new StringBuilder("[");
            for (Object v : list) {
                sb.append(sb.length() > 1 ? ", " : "").append(literal(v));
            }
            return sb.append(']').toString();
        }
        throw new IllegalArgumentException("a stage parameter is a string, an integer, a number, a boolean or a list, not " + value);
    }

    /**
     * The file's statements: split at each {@code ;} that ends a line, after dropping {@code --} comment
     * lines (the stage files keep their semicolons at line ends and out of comments and strings).
     */
    static List<String> split(String text) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : text.split("\n")) {
            if (line.strip().startsWith("--")) {
                continue;
            }
            current.append(line).append('\n');
            if (line.stripTrailing().endsWith(";")) {
                String sql = current.toString().strip();
                out.add(sql.substring(0, sql.length() - 1));
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            out.add(current.toString().strip());
        }
        return out;
    }
}
