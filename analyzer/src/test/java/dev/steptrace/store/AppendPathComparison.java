package dev.steptrace.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Locale;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * Measures the two ways rows can go into DuckDB from Java, on the real {@code gpu_ops} table: the
 * JDBC appender (row by row) and Arrow batches through the C data interface ({@link TableBatch}, what
 * ingest uses). Not a test: run it by hand, figures go to docs/store-ingest-path.md.
 *
 * <pre>
 * mvn -q -o test-compile -pl analyzer
 * java --add-opens=java.base/java.nio=ALL-UNNAMED \
 *   -cp analyzer/target/steptrace.jar:analyzer/target/test-classes dev.steptrace.store.AppendPathComparison
 * </pre>
 */
public final class AppendPathComparison {
    private static final int ROWS = 1_000_000;

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("append-path");
        for (int round = 1; round <= 3; round++) {
            System.out.printf(Locale.ROOT, "round %d: appender %.2f M rows/s, arrow batches %.2f M rows/s%n", round,
                    appender(dir.resolve("a" + round + ".duckdb")), arrow(dir.resolve("b" + round + ".duckdb")));
        }
    }

    private static double appender(Path db) throws Exception {
        try (Store store = Store.open(db); Connection c = store.newConnection()) {
            c.setAutoCommit(false);
            long t0 = System.nanoTime();
            try (DuckDBAppender a = c.unwrap(DuckDBConnection.class).createAppender("main", "gpu_ops")) {
                for (int i = 0; i < ROWS; i++) {
                    a.beginRow();
                    a.append(1);
                    a.append("kernel");
                    a.append(i % 500);
                    a.append(0);
                    a.append(7L);
                    a.append(1_790_000_000_000_000_000L + i * 1000L);
                    a.append(1500L);
                    a.append((long) i / 30);
                    a.appendNull();
                    a.appendNull();
                    a.appendNull();
                    a.appendNull();
                    a.append(14);
                    a.append(1);
                    a.append(1);
                    a.append(128);
                    a.append(1);
                    a.append(1);
                    a.endRow();
                }
            }
            c.commit();
            return ROWS / 1e3 / ((System.nanoTime() - t0) / 1e6);
        }
    }

    private static double arrow(Path db) throws Exception {
        try (Store store = Store.open(db); Connection c = store.newConnection()) {
            c.setAutoCommit(false);
            long t0 = System.nanoTime();
            try (TableBatch b = TableBatch.forTable(c, store.allocator(), "gpu_ops", 65536)) {
                int file = b.column("file_id");
                int kind = b.column("kind");
                int kernel = b.enumCode(kind, "kernel");
                int gridX = b.column("grid_x");
                int blockX = b.column("block_x");
                for (int i = 0; i < ROWS; i++) {
                    b.setInt(file, 1);
                    b.setEnum(kind, kernel);
                    b.setInt(2, i % 500);
                    b.setInt(3, 0);
                    b.setLong(4, 7L);
                    b.setLong(5, 1_790_000_000_000_000_000L + i * 1000L);
                    b.setLong(6, 1500L);
                    b.setLong(7, (long) i / 30);
                    b.setInt(gridX, 14);
                    b.setInt(gridX + 1, 1);
                    b.setInt(gridX + 2, 1);
                    b.setInt(blockX, 128);
                    b.setInt(blockX + 1, 1);
                    b.setInt(blockX + 2, 1);
                    b.endRow();
                }
                b.flush();
            }
            c.commit();
            return ROWS / 1e3 / ((System.nanoTime() - t0) / 1e6);
        }
    }
}
