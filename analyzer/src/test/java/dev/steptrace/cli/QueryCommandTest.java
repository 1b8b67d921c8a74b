package dev.steptrace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code steptrace query}: results in each format, what a statement without rows changed, and one useful
 * line when DuckDB rejects the SQL.
 */
class QueryCommandTest {
    @TempDir
    static Path tmp;

    private static Path db;

    @BeforeAll
    static void ingestASlice() {
        db = tmp.resolve("store.duckdb");
        Cli.assertExit(0, Cli.run("ingest", TestData.smallTraces().resolve("h200_tp2_moe_decode_rank0_slice.pt.trace.json.gz")
                .toString(), "--db", db.toString(), "--quiet"));
    }

    @Test
    void printsCsv() {
        Cli.Result r = Cli.run("query", "SELECT count(*) AS kernels FROM kernels", "--db", db.toString(), "--format", "csv");
        Cli.assertExit(0, r);
        assertEquals("kernels\n279\n", r.out());
    }

    @Test
    void aRejectedQuerySaysWhyInOneLine() {
        Cli.Result r = Cli.run("query", "SELECT nope FROM kernels", "--db", db.toString());
        Cli.assertExit(1, r);
        // Not the JDBC driver's "Attempting to execute an unsuccessful or closed pending query result".
        assertTrue(r.err().startsWith("steptrace: query failed: Binder Error: Referenced column \"nope\" not found"), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
    }

    @Test
    void aStatementWithoutRowsSaysHowManyItChanged() {
        // The store holds one file: the slice ingested above.
        Cli.Result r = Cli.run("query", "UPDATE files SET host_name = host_name", "--db", db.toString(), "--write");
        Cli.assertExit(0, r);
        assertEquals("(1 row changed)\n", r.out());
    }

    @Test
    void aMissingStoreIsNamed() {
        Path missing = tmp.resolve("absent.duckdb");
        Cli.Result r = Cli.run("query", "SELECT 1", "--db", missing.toString());
        Cli.assertExit(1, r);
        assertTrue(r.err().startsWith("steptrace: no store at " + missing), r.err());
    }
}
