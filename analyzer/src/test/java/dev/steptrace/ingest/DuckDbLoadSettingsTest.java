package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.steptrace.store.Store;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The load's DuckDB settings hold while files load and are set back to the store's own after. */
class DuckDbLoadSettingsTest {
    @TempDir
    Path tmp;

    @Test
    void settingsHoldWhileLoadingAndAreSetBackAfter() throws Exception {
        try (Store store = Store.open(tmp.resolve("s.duckdb"))) {
            Connection c = store.connection();
            try (Statement s = c.createStatement()) {
                s.execute("SET threads = 3");
                s.execute("SET write_buffer_row_group_count = 4");
            }
            try (DuckDbLoadSettings loading = DuckDbLoadSettings.apply(c)) {
                assertEquals("1", setting(c, "threads"));
                assertEquals("1", setting(c, "write_buffer_row_group_count"));
            }
            assertEquals("3", setting(c, "threads"));
            assertEquals("4", setting(c, "write_buffer_row_group_count"));
        }
    }

    private static String setting(Connection c, String name) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_setting('" + name + "')")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
