package dev.steptrace.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.StoreDb;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No DuckDB connection of the code base installs or loads an extension on its own: each kind of connection is
 * asked for one (an SQLite file attached, which DuckDB's defaults answer by downloading {@code sqlite_scanner}),
 * and every connection in the sources is opened through {@link DuckDb}.
 */
class DuckDbExtensionsTest {
    /** What DuckDB's JDBC library has built in, loaded without asking. */
    private static final Set<String> BUILT_IN = Set.of("core_functions", "icu", "json", "parquet");

    /** A JDBC URL of DuckDB in a Java string, written in two parts so that this file does not hold it. */
    private static final String OPENED_BY_URL = "\"jdbc:" + "duckdb";

    @TempDir
    Path tmp;

    @Test
    void noConnectionInstallsOrLoadsAnExtension() throws Exception {
        Path sqlite = tmp.resolve("other.sqlite");
        try (Connection lite = DriverManager.getConnection("jdbc:sqlite:" + sqlite); Statement s = lite.createStatement()) {
            s.execute("CREATE TABLE t (a INTEGER)");
        }
        Path db = tmp.resolve("store.duckdb");
        Map<String, Connection> connections = new LinkedHashMap<>();
        try (Store store = Store.open(db)) {
            connections.put("the store's", store.connection());
            connections.put("a worker's (duplicated)", store.newConnection());
            try (Statement s = store.connection().createStatement()) {
                // What the analysis's work database is: attached to the store's instance.
                s.execute("ATTACH ':memory:' AS work (COMPRESS)");
            }
            connections.put("an in-memory one's", DuckDb.inMemory());
            for (Map.Entry<String, Connection> e : connections.entrySet()) {
                assertRefusesExtensions(e.getKey(), e.getValue(), sqlite);
            }
            connections.get("a worker's (duplicated)").close();
            connections.get("an in-memory one's").close();
        }
        try (Store store = Store.openReadOnly(db)) {
            assertRefusesExtensions("a read-only store's", store.connection(), sqlite);
        }
        try (StoreDb s = StoreDb.open(db)) {
            assertRefusesExtensions("the tests' StoreDb", s.connection(), sqlite);
        }
    }

    private static void assertRefusesExtensions(String which, Connection c, Path sqlite) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('autoinstall_known_extensions'),"
                     + " current_setting('autoload_known_extensions')")) {
            rs.next();
            assertFalse(rs.getBoolean(1), which + ": autoinstall_known_extensions");
            assertFalse(rs.getBoolean(2), which + ": autoload_known_extensions");
        }
        // DuckDB closes a statement that failed: one each.
        try (Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class, () -> s.execute("ATTACH '" + sqlite + "' AS lite (TYPE sqlite)"),
                    which + ": attached an SQLite database");
            assertFalse(e.getMessage().contains("download"), which + ": " + e.getMessage());
        }
        try (Statement s = c.createStatement()) {
            assertThrows(SQLException.class, () -> s.execute("SELECT * FROM sqlite_scan('" + sqlite + "', 't')"), which);
        }
        Set<String> loaded = new TreeSet<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT extension_name FROM duckdb_extensions() WHERE loaded")) {
            while (rs.next()) {
                loaded.add(rs.getString(1));
            }
        }
        assertTrue(BUILT_IN.containsAll(loaded), which + ": loaded " + loaded);
    }

    /** Every connection of the code base, main, tests and Spark, is opened by {@link DuckDb#connect}. */
    @Test
    void everyConnectionIsOpenedThroughDuckDb() throws IOException {
        Path root = TestData.repoRoot();
        List<String> elsewhere = new ArrayList<>();
        for (String module : List.of("analyzer", "spark")) {
            Path src = root.resolve(module).resolve("src");
            if (!Files.isDirectory(src)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(src)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    if (!f.endsWith(Path.of("dev", "steptrace", "store", "DuckDb.java"))
                            && Files.readString(f).contains(OPENED_BY_URL)) {
                        elsewhere.add(root.relativize(f).toString());
                    }
                }
            }
        }
        assertEquals(List.of(), elsewhere, "DuckDB connections opened without DuckDb.connect");
    }
}
