package dev.steptrace.cli;

import dev.steptrace.common.InputException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.steptrace.common.Messages;
import dev.steptrace.store.Store;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "query", mixinStandardHelpOptions = true,
        description = {"Run SQL on the store and print the result.",
                "Tables and views: docs/schema.md (e.g. kernels, gpu_events, cpu_events, runtime_calls, files). "
                        + "The store is opened read-only unless --write is given. The SQL is DuckDB's, with its access to "
                        + "files: read_text('/path') reads any file steptrace can read, COPY ... TO writes one. --safe "
                        + "turns that off (DuckDB's enable_external_access, locked): use it for SQL you did not write."})
public final class QueryCommand implements Callable<Integer> {
    /** Longest cell printed in table format; CSV and JSON are never cut. */
    private static final int MAX_CELL = 80;

    enum Format { table, csv, json }

    @Parameters(index = "0", paramLabel = "SQL")
    String sql;

    @Mixin
    CommonOptions common;

    @Option(names = "--format", defaultValue = "table", description = "table, csv or json (default: ${DEFAULT-VALUE}).")
    Format format;

    @Option(names = "--write", description = "Open the store for writing: statements may change it (default: read-only).")
    boolean write;

    @Option(names = "--safe", description = "No access to files, the network or extensions from the SQL: only the store"
            + " (DuckDB's enable_external_access = false, with its configuration locked).")
    boolean safe;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Path db = Store.resolve(common.db);
        if (!Files.exists(db)) {
            throw new InputException("no store at " + db + ": run `steptrace ingest <trace dir>` first, or pass --db");
        }
        PrintWriter out = spec.commandLine().getOut();
        try (Store store = write ? Store.open(db) : Store.openReadOnly(db);
             Statement s = store.connection().createStatement()) {
            if (safe) {
                // Locked, so that the SQL cannot SET it back.
                s.execute("SET enable_external_access = false");
                s.execute("SET lock_configuration = true");
            }
            boolean hasRows;
            try {
                hasRows = s.execute(sql);
            } catch (SQLException e) {
                String why = Messages.firstLine(Messages.sqlError(e.getMessage()));
                throw new InputException("query failed: " + why + (!write && why.contains("read-only")
                        ? " (the store is opened read-only; --write lets statements change it)" : ""));
            }
            if (!hasRows) {
                // A statement without a result (DELETE, CREATE VIEW...): say what it changed.
                long changed = s.getLargeUpdateCount();
                out.println(changed < 0 ? "done" : "(" + changed + (changed == 1 ? " row" : " rows") + " changed)");
                out.flush();
                return Main.OK;
            }
            ResultSet rs = s.getResultSet();
            ResultSetMetaData md = rs.getMetaData();
            int n = md.getColumnCount();
            List<String> columns = new ArrayList<>();
            for (int i = 1; i <= n; i++) {
                columns.add(md.getColumnLabel(i));
            }
            List<Object[]> rows = new ArrayList<>();
            while (rs.next()) {
                Object[] row = new Object[n];
                for (int i = 0; i < n; i++) {
                    row[i] = rs.getObject(i + 1);
                }
                rows.add(row);
            }
            switch (format) {
                case csv:
                    printCsv(out, columns, rows);
                    break;
                case json:
                    printJson(out, columns, rows);
                    break;
                default:
                    printTable(out, columns, rows);
            }
            out.flush();
        }
        return Main.OK;
    }

    private static void printTable(PrintWriter out, List<String> columns, List<Object[]> rows) {
        int[] width = new int[columns.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = columns.get(i).length();
        }
        List<String[]> cells = new ArrayList<>();
        for (Object[] row : rows) {
            String[] c = new String[row.length];
            for (int i = 0; i < row.length; i++) {
                c[i] = cut(row[i] == null ? "NULL" : String.valueOf(row[i]));
                width[i] = Math.max(width[i], c[i].length());
            }
            cells.add(c);
        }
        StringBuilder rule = new StringBuilder();
        for (int i = 0; i < width.length; i++) {
            out.print((i > 0 ? "  " : "") + pad(columns.get(i), width[i]));
            rule.append(i > 0 ? "  " : "").append("-".repeat(width[i]));
        }
        out.println();
        out.println(rule);
        for (String[] c : cells) {
            for (int i = 0; i < c.length; i++) {
                out.print((i > 0 ? "  " : "") + pad(c[i], width[i]));
            }
            out.println();
        }
        out.println("(" + rows.size() + (rows.size() == 1 ? " row)" : " rows)"));
    }

    private static String cut(String s) {
        String one = Messages.printable(s.replace('\n', ' '));
        return one.length() <= MAX_CELL ? one : one.substring(0, MAX_CELL - 1) + "…";
    }

    private static String pad(String s, int w) {
        return s.length() >= w ? s : s + " ".repeat(w - s.length());
    }

    private static void printCsv(PrintWriter out, List<String> columns, List<Object[]> rows) {
        out.println(String.join(",", columns.stream().map(c -> csv(inert(c))).toList()));
        for (Object[] row : rows) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                if (i > 0) {
                    sb.append(',');
                }
                if (row[i] != null) {
                    String cell = String.valueOf(row[i]);
                    sb.append(csv(row[i] instanceof Number ? cell : inert(cell)));
                }
            }
            out.println(sb);
        }
    }

    /**
     * Text that a spreadsheet opening the CSV would run as a formula (a cell starting with {@code = + - @}, a
     * tab or a carriage return: a kernel name can be anything) kept as text by a leading {@code '}, as
     * spreadsheets themselves mark text. Numbers are left as they are.
     */
    private static String inert(String s) {
        return !s.isEmpty() && "=+-@\t\r".indexOf(s.charAt(0)) >= 0 ? "'" + s : s;
    }

    private static String csv(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }

    private static void printJson(PrintWriter out, List<String> columns, List<Object[]> rows) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        ArrayNode array = mapper.createArrayNode();
        for (Object[] row : rows) {
            ObjectNode o = array.addObject();
            for (int i = 0; i < row.length; i++) {
                Object v = row[i];
                String k = columns.get(i);
                if (v == null) {
                    o.putNull(k);
                } else if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
                    o.put(k, ((Number) v).longValue());
                } else if (v instanceof BigInteger) {
                    o.put(k, (BigInteger) v);
                } else if (v instanceof BigDecimal) {
                    o.put(k, (BigDecimal) v);
                } else if (v instanceof Double || v instanceof Float) {
                    o.put(k, ((Number) v).doubleValue());
                } else if (v instanceof Boolean) {
                    o.put(k, (Boolean) v);
                } else {
                    o.put(k, String.valueOf(v));
                }
            }
        }
        out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(array));
    }
}
