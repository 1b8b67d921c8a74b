package dev.steptrace.store;

import dev.steptrace.common.OutputFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The store's tables as one Hive-partitioned Parquet dataset (docs/export.md): {@code DIR/<table>/
 * capture=<name>/rank=<rank>/data_0.parquet}. The tables are the store's own (its catalogue, made by
 * schema.sql), never a list kept here: a table added to the store is exported as it is. How a table is
 * partitioned follows from its key columns alone.
 */
public final class ParquetExport {
    /** The partition columns: the capture's name and the rank of the row's file. */
    public static final String CAPTURE = "capture";
    public static final String RANK = "rank";
    /** A table's own {@code rank} column, renamed: {@code rank} is the partition column. */
    public static final String ROW_RANK = "row_rank";

    /** How a table's rows are laid out in the dataset. */
    public enum Layout {
        /** Rows of a file (a {@code file_id} column): {@code capture=.../rank=...}. */
        CAPTURE_RANK,
        /** Rows of a capture as a whole (a {@code capture_id} column, no {@code file_id}): {@code capture=...}. */
        CAPTURE,
        /** Store-wide rows (neither key): one file, {@code <table>/data_0.parquet}. */
        WHOLE
    }

    /** A table of the store and its layout. */
    public record Table(String name, List<String> columns, Layout layout) {}

    /** What was written of one table. */
    public record Written(String table, Layout layout, long rows) {}

    private ParquetExport() {}

    /** The store's tables (main schema, not temporary), in name order, with their layouts. */
    public static List<Table> tables(Connection c) throws SQLException {
        Map<String, List<String>> columns = new LinkedHashMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("""
                     SELECT table_name, column_name FROM duckdb_columns()
                     WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal
                       AND table_name IN (SELECT table_name FROM duckdb_tables()
                                          WHERE database_name = current_database() AND schema_name = 'main'
                                            AND NOT temporary)
                     ORDER BY table_name, column_index""")) {
            while (rs.next()) {
                columns.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getString(2));
            }
        }
        List<Table> out = new ArrayList<>();
        columns.forEach((name, cols) -> out.add(new Table(name, List.copyOf(cols), cols.contains("file_id")
                ? Layout.CAPTURE_RANK : cols.contains("capture_id") ? Layout.CAPTURE : Layout.WHOLE)));
        return out;
    }

    /**
     * Writes every table's rows of the given captures (all captures when {@code captureIds} is null) under
     * {@code dir}, replacing what an earlier export wrote there for those captures; other captures' partitions
     * are left as they are, so exports of several stores or days can share one dataset. Store-wide tables
     * are written whole each time.
     *
     * @return what was written, per table (tables with no rows for these captures write nothing)
     */
    public static List<Written> write(Connection c, Collection<Integer> captureIds, Path dir)
            throws SQLException, IOException {
        return write(c, captureIds, dir, EnumSet.allOf(Layout.class));
    }

    /**
     * {@link #write} for the tables of some layouts only: a Spark task writes the rows of its one file
     * ({@link Layout#CAPTURE_RANK}); what is of a capture as a whole needs every rank (docs/spark.md).
     */
    public static List<Written> write(Connection c, Collection<Integer> captureIds, Path dir, Set<Layout> layouts)
            throws SQLException, IOException {
        Map<Integer, String> captures = captureNames(c, captureIds);
        Files.createDirectories(dir);
        List<Written> out = new ArrayList<>();
        try (Statement s = c.createStatement()) {
            for (Table t : tables(c)) {
                if (!layouts.contains(t.layout())) {
                    continue;
                }
                Path tableDir = dir.resolve(t.name());
                if (t.layout() != Layout.WHOLE && captures.isEmpty()) {
                    out.add(new Written(t.name(), t.layout(), 0));
                    continue;
                }
                // Written beside the table, then moved into it: a full disk or a failure half way leaves the
                // dataset as it was, never a Parquet file cut short.
                Path staging = OutputFiles.temporary(tableDir);
                try {
                    Path whole = staging.resolve("data_0.parquet");
                    Files.createDirectories(staging);
                    // One pass over the rows: COPY says how many it wrote.
                    s.execute("COPY (" + rows(t, captures.keySet()) + ") TO "
                            + literal((t.layout() == Layout.WHOLE ? whole : staging).toString())
                            + " (FORMAT parquet" + switch (t.layout()) {
                                case CAPTURE_RANK -> ", PARTITION_BY (" + CAPTURE + ", " + RANK + "), OVERWRITE_OR_IGNORE";
                                case CAPTURE -> ", PARTITION_BY (" + CAPTURE + "), OVERWRITE_OR_IGNORE";
                                case WHOLE -> "";
                            } + ")");
                    long rows = s.getLargeUpdateCount();
                    replace(t, tableDir, staging, rows, Set.copyOf(captures.values()));
                    out.add(new Written(t.name(), t.layout(), rows));
                } finally {
                    OutputFiles.deleteTree(staging);
                }
            }
        }
        return out;
    }

    /**
     * The SELECT of a table's rows of some captures as the dataset holds them, partition columns included:
     * the capture's name from the row's own {@code capture_id} when it has one (an analysis of a file taken
     * alone belongs to that capture), else from its file's; the rank is always the file's.
     */
    public static String rows(Table t, Collection<Integer> captureIds) {
        String ids = captureIds.isEmpty() ? "NULL" : captureIds.stream().map(String::valueOf).collect(Collectors.joining(", "));
        boolean ownCapture = t.columns().contains("capture_id");
        return switch (t.layout()) {
            case WHOLE -> "SELECT * FROM " + Sql.identifier(t.name());
            case CAPTURE -> "SELECT t.*, c.name AS " + CAPTURE + " FROM " + Sql.identifier(t.name())
                    + " t JOIN captures c ON c.capture_id = t.capture_id WHERE c.capture_id IN (" + ids + ")";
            case CAPTURE_RANK -> {
                // files.rank is the file's rank itself; any other table's own rank column says something
                // of its own (comm_meta's is what the collective's metadata names) and keeps it renamed.
                // files.file_stat (devices, inodes, times of this machine's disks) means nothing elsewhere.
                String own = !t.columns().contains(RANK) ? "t.*"
                        : t.name().equals("files") ? "t.* EXCLUDE (" + RANK + ", file_stat)"
                        : "t.* RENAME (" + RANK + " AS " + ROW_RANK + ")";
                yield "SELECT " + own + ", c.name AS " + CAPTURE + ", f.rank AS " + RANK + " FROM " + Sql.identifier(t.name())
                        + " t JOIN files f ON f.file_id = t.file_id JOIN captures c ON c.capture_id = "
                        + (ownCapture ? "t" : "f") + ".capture_id WHERE c.capture_id IN (" + ids + ")";
            }
        };
    }

    private static Map<Integer, String> captureNames(Connection c, Collection<Integer> captureIds) throws SQLException {
        Map<Integer, String> names = new LinkedHashMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT capture_id, name FROM captures ORDER BY capture_id")) {
            while (rs.next()) {
                if (captureIds == null || captureIds.contains(rs.getInt(1))) {
                    names.put(rs.getInt(1), rs.getString(2));
                }
            }
        }
        return names;
    }

    /**
     * Puts a table's rows written into {@code staging} in place of what the dataset held of them: the whole
     * table, or these captures' partitions (other captures' are kept). A table without rows leaves nothing
     * behind: not an empty file, not a directory made for it.
     */
    private static void replace(Table t, Path tableDir, Path staging, long rows, Set<String> captureNames)
            throws IOException {
        if (t.layout() == Layout.WHOLE) {
            OutputFiles.deleteTree(tableDir);
        } else {
            removePartitions(tableDir, captureNames);
        }
        if (rows == 0) {
            return;
        }
        Files.createDirectories(tableDir);
        try (Stream<Path> written = Files.list(staging)) {
            for (Path p : written.toList()) {
                Files.move(p, tableDir.resolve(p.getFileName()), StandardCopyOption.ATOMIC_MOVE);
            }
        }
    }

    /**
     * Deletes the {@code capture=<name>} directories of these captures under a table's directory. DuckDB
     * writes a partition value percent-encoded, so the directories present are decoded rather than the
     * names encoded a second way here.
     */
    private static void removePartitions(Path tableDir, Set<String> captureNames) throws IOException {
        if (!Files.isDirectory(tableDir)) {
            return;
        }
        List<Path> doomed;
        try (Stream<Path> children = Files.list(tableDir)) {
            doomed = children.filter(p -> {
                String n = p.getFileName().toString();
                return n.startsWith(CAPTURE + "=") && captureNames.contains(percentDecode(n.substring(CAPTURE.length() + 1)));
            }).toList();
        }
        for (Path p : doomed) {
            OutputFiles.deleteTree(p);
        }
    }

    /** Decodes %XX escapes (UTF-8) and nothing else: '+' stays '+', unlike form decoding. */
    public static String percentDecode(String s) {
        byte[] raw = s.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[raw.length];
        int n = 0;
        for (int i = 0; i < raw.length; i++) {
            if (raw[i] == '%' && i + 2 < raw.length && hex(raw[i + 1]) >= 0 && hex(raw[i + 2]) >= 0) {
                out[n++] = (byte) (hex(raw[i + 1]) * 16 + hex(raw[i + 2]));
                i += 2;
            } else {
                out[n++] = raw[i];
            }
        }
        return new String(out, 0, n, StandardCharsets.UTF_8);
    }

    private static int hex(byte b) {
        return Character.digit(b, 16);
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}
