package dev.steptrace.testsupport;

import dev.steptrace.store.DuckDb;
import dev.steptrace.store.Sql;
import dev.steptrace.store.StoreCaptures;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Whether two stores keep the same analysis: every kept table ({@link StoreCaptures#ANALYSIS_TABLES} but
 * {@code analyses}, which records when and how long) compared with EXCEPT ALL both ways. File ids are compared
 * as the files' paths and capture ids as the captures' paths and names: stores loaded on several file threads
 * number their files in either order. What a change of an analysis stage must keep (docs/performance.md).
 *
 * <p>From the command line, on two stores made of the same traces by two builds (the script
 * {@code analyzer/src/test/scripts/kept-analysis-same.sh} makes them): {@code java -cp
 * analyzer/target/test-classes:analyzer/target/steptrace.jar dev.steptrace.testsupport.KeptAnalysisDiff A B}
 * prints each table's rows and the rows only in either, and exits 1 when any differ.
 */
public final class KeptAnalysisDiff {
    private KeptAnalysisDiff() {}

    /** One table compared: its rows in each store, and the rows of each that the other lacks. */
    public record Table(String name, long rowsA, long rowsB, long onlyA, long onlyB) {
        public boolean same() {
            return onlyA == 0 && onlyB == 0;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: KeptAnalysisDiff STORE_A STORE_B");
            System.exit(2);
        }
        List<Table> tables = compare(Path.of(args[0]), Path.of(args[1]));
        boolean same = true;
        for (Table t : tables) {
            System.out.printf(Locale.ROOT, "%-22s %10d %10d   only in A %d, only in B %d%n", t.name(), t.rowsA(), t.rowsB(),
                    t.onlyA(), t.onlyB());
            same &= t.same();
        }
        System.out.println(same ? "the same kept analysis" : "DIFFERENT");
        System.exit(same ? 0 : 1);
    }

    /** Every kept table of the stores {@code a} and {@code b}, opened read-only. */
    public static List<Table> compare(Path a, Path b) throws SQLException {
        try (Connection c = DuckDb.inMemory()) {
            Sql.exec(c, "ATTACH '" + a.toString().replace("'", "''") + "' AS a (READ_ONLY)");
            Sql.exec(c, "ATTACH '" + b.toString().replace("'", "''") + "' AS b (READ_ONLY)");
            List<Table> out = new ArrayList<>();
            for (String table : StoreCaptures.ANALYSIS_TABLES) {
                if (table.equals("analyses")) {
                    continue;
                }
                String rowsA = rows(c, "a", table);
                String rowsB = rows(c, "b", table);
                // a table one build does not have (added or dropped): every row of the other's differs
                if (rowsA == null || rowsB == null) {
                    long n = Sql.count(c, "SELECT count(*) FROM (" + (rowsA == null ? rowsB : rowsA) + ")");
                    out.add(rowsA == null ? new Table(table, 0, n, 0, n) : new Table(table, n, 0, n, 0));
                    continue;
                }
                out.add(new Table(table, Sql.count(c, "SELECT count(*) FROM (" + rowsA + ")"),
                        Sql.count(c, "SELECT count(*) FROM (" + rowsB + ")"),
                        Sql.count(c, "SELECT count(*) FROM (" + rowsA + " EXCEPT ALL " + rowsB + ")"),
                        Sql.count(c, "SELECT count(*) FROM (" + rowsB + " EXCEPT ALL " + rowsA + ")")));
            }
            return out;
        }
    }

    /** A table's rows with its file and capture ids as paths (and names), in column order; null: no such table. */
    private static String rows(Connection c, String db, String table) throws SQLException {
        Map<String, String> columns = new LinkedHashMap<>();
        for (String col : Sql.strings(c, "SELECT column_name FROM duckdb_columns() WHERE database_name = '" + db
                + "' AND schema_name = 'main' AND table_name = '" + table + "' ORDER BY column_index")) {
            columns.put(col, switch (col) {
                case "file_id", "last_file_id" -> "(SELECT f.path FROM " + db + ".files f WHERE f.file_id = t." + col + ")";
                case "capture_id" -> "(SELECT k.path || '|' || k.name FROM " + db + ".captures k WHERE k.capture_id = t."
                        + col + ")";
                default -> "t." + Sql.identifier(col);
            });
        }
        if (columns.isEmpty()) {
            return null;
        }
        return "SELECT " + String.join(", ", columns.values()) + " FROM " + db + ".main." + Sql.identifier(table) + " t";
    }
}
