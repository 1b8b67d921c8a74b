package dev.steptrace.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One query file of the analysis, {@code analyzer/src/main/resources/dev/steptrace/analysis/queries/NAME.sql}
 * (docs/architecture.md, "Queries of the kept analysis"): one SELECT whose header says what it returns, the
 * tables it reads and its parameters, which it reads as DuckDB variables ({@code getvariable('name')}), so it
 * runs as it is in the DuckDB shell after {@code SET VARIABLE name = value}.
 *
 * <p>Java runs it as a prepared statement, each {@code getvariable} a parameter bound to the statement (not a
 * variable of the connection, which readers share). {@link #literal} gives the statement with each parameter
 * written as a literal instead: what a warning shows as its evidence, a statement any DuckDB client runs as it is.
 */
public final class QueryFile {
    private static final String DIR = "/dev/steptrace/analysis/queries/";
    private static final Pattern PARAMETER = Pattern.compile("getvariable\\('([a-z_][a-z0-9_]*)'\\)");

    private final String name;
    private final String sql;

    private QueryFile(String name, String sql) {
        this.name = name;
        this.sql = sql;
    }

    /** The query file {@code NAME} (its path under {@code queries/} without {@code .sql}), from the class path. */
    public static QueryFile load(String name) {
        String resource = DIR + name + ".sql";
        try (InputStream in = QueryFile.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no analysis query " + resource);
            }
            List<String> statements = statements(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            if (statements.size() != 1) {
                throw new IllegalStateException("analysis query " + name + " holds " + statements.size() + " statements");
            }
            return new QueryFile(name, statements.get(0));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String name() {
        return name;
    }

    /** The statement, comments dropped, its parameters as {@code getvariable('name')}. */
    public String sql() {
        return sql;
    }

    /** The names of its parameters, in order of first use. */
    public List<String> parameters() {
        List<String> out = new ArrayList<>();
        Matcher m = PARAMETER.matcher(sql);
        while (m.find()) {
            if (!out.contains(m.group(1))) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    /** Runs the query with {@code parameters} bound by name; each row goes to {@code rows}. */
    public void run(Connection c, Map<String, ?> parameters, Sql.Rows rows) throws SQLException {
        try (PreparedStatement ps = prepare(c, parameters); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.row(rs);
            }
        }
    }

    /** Runs the query as {@link #run} does, its rows handed to {@code batches} as Arrow batches of {@code batchRows}. */
    public void runBatches(Connection c, Map<String, ?> parameters, int batchRows, Sql.Batches batches)
            throws SQLException {
        try (PreparedStatement ps = prepare(c, parameters); ResultSet rs = ps.executeQuery()) {
            Sql.batches(rs, batchRows, batches);
        }
    }

    private PreparedStatement prepare(Connection c, Map<String, ?> parameters) throws SQLException {
        Matcher m = PARAMETER.matcher(sql);
        List<Object> values = new ArrayList<>();
        StringBuilder bound = new StringBuilder();
        while (m.find()) {
            values.add(value(parameters, m.group(1)));
            m.appendReplacement(bound, "?");
        }
        m.appendTail(bound);
        PreparedStatement ps = c.prepareStatement(bound.toString());
        try {
            for (int i = 0; i < values.size(); i++) {
                ps.setObject(i + 1, values.get(i) instanceof List<?> list ? array(c, list) : values.get(i));
            }
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
        return ps;
    }

    /** The statement with each parameter written as a literal of its value: it runs as it is in any DuckDB client. */
    public String literal(Map<String, ?> parameters) {
        Matcher m = PARAMETER.matcher(sql);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(literal(value(parameters, m.group(1)))));
        }
        return m.appendTail(out).toString();
    }

    private Object value(Map<String, ?> parameters, String parameter) {
        if (!parameters.containsKey(parameter)) {
            throw new IllegalArgumentException("analysis query " + name + ": no value for " + parameter);
        }
        return parameters.get(parameter);
    }

    /** A list as a DuckDB list parameter, of the type of its elements (VARCHAR when none is known: the query casts). */
    private static Array array(Connection c, List<?> list) throws SQLException {
        Object first = list.stream().filter(v -> v != null).findFirst().map(v -> (Object) v).orElse("");
        String type = first instanceof Integer ? "INTEGER" : first instanceof Long ? "BIGINT"
                : first instanceof Double ? "DOUBLE" : first instanceof Boolean ? "BOOLEAN" : "VARCHAR";
        return c.createArrayOf(type, list.toArray());
    }

    /**
     * A value as a SQL literal, as a stage's {@code SET VARIABLE} or a query's evidence writes it: an integer, a
     * number (a DOUBLE), a boolean, a string, NULL, or a list of these.
     */
    public static String literal(Object value) {
        if (value == null) {
            return "NULL";
        }
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
        throw new IllegalArgumentException("a parameter is a string, an integer, a number, a boolean, NULL or a list, not "
                + value);
    }

    /**
     * The statements of a file of SQL: split at each {@code ;} that ends a line, after dropping {@code --} comment
     * lines (the analysis's files keep their semicolons at line ends and out of comments and strings).
     */
    public static List<String> statements(String text) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : text.split("\n")) {
            if (line.strip().startsWith("--")) {
                continue;
            }
            current.append(line).append('\n');
            if (line.stripTrailing().endsWith(";")) {
                String statement = current.toString().strip();
                out.add(statement.substring(0, statement.length() - 1));
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            out.add(current.toString().strip());
        }
        return out;
    }
}
