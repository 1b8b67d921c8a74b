package dev.steptrace.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Work run under a scaled memory limit ({@link Store#withMemoryLimitScaled}) sees the limit stores are opened with
 * scaled, and the limit is that one afterwards, also when the work fails. DuckDB shows a size in MiB, one decimal
 * cut off: 512 MB (512,000,000 bytes, the default) as 488.2 MiB; half of it as 244.1 MiB, twice as 976.5 MiB.
 */
class StoreMemoryLimitTest {
    @Test
    void theLimitIsScaledForTheWorkAndSetBackAfterIt() throws Exception {
        assertEquals("512MB", Store.memoryLimit(), "the tests' environment sets no other limit");
        try (Connection c = DuckDb.inMemory()) {
            String[] seen = new String[1];
            Store.withMemoryLimitScaled(c, 0.5, () -> seen[0] = limit(c));
            assertEquals("244.1 MiB", seen[0]);
            assertEquals("488.2 MiB", limit(c));
            SQLException e = assertThrows(SQLException.class, () -> Store.withMemoryLimitScaled(c, 2, () -> {
                seen[0] = limit(c);
                Sql.exec(c, "SELECT * FROM no_such_table");
            }));
            assertEquals("976.5 MiB", seen[0], e.getMessage());
            assertEquals("488.2 MiB", limit(c));
        }
    }

    private static String limit(Connection c) throws SQLException {
        return Sql.strings(c, "SELECT current_setting('memory_limit')").get(0);
    }
}
