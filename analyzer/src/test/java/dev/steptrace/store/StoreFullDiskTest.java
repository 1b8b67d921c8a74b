package dev.steptrace.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.MainProcess;
import dev.steptrace.testsupport.Programs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store whose disk fills when DuckDB writes its log into the store's file (the checkpoint at the end of an
 * ingest, which DuckDB otherwise does at close and fails silently): the ingest says so in one line, and every
 * later command opens the store read-only, saying why, instead of failing on a DuckDB transaction message.
 * The disk is a 3 MiB tmpfs in a private mount namespace: room for the real trace's rows in the log, not
 * for the checkpoint besides. Skipped where no tmpfs can be mounted (it needs CAP_SYS_ADMIN).
 */
class StoreFullDiskTest {
    private static final String SEPARATOR = "--- next command ---";

    @TempDir
    Path tmp;

    @Test
    void aFullDiskAtTheCheckpointIsSaidAndTheStoreStaysReadable() throws Exception {
        Assumptions.assumeTrue(Programs.works("unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"),
                "no tmpfs can be mounted here (it needs CAP_SYS_ADMIN): the full disk is not provoked");
        Path capture = Files.createDirectories(tmp.resolve("capture"));
        Files.copy(TestData.sampleTraces().resolve("h200-tp2-moe-decode/graph-nccl-ll/rank0.1796007184371600567.pt.trace.json.gz"),
                capture.resolve("rank0.pt.trace.json.gz"));
        Path full = Files.createDirectories(tmp.resolve("full"));
        String db = full.resolve("steptrace.duckdb").toString();
        List<List<String>> commands = List.of(
                List.of("ingest", capture.toString(), "--db", db, "--quiet"),
                List.of("report", capture.toString(), "--db", db, "--out", tmp.resolve("out").toString(), "--format",
                        "json", "--quiet"),
                List.of("query", "SELECT concat('files: ', count(*)) AS n FROM files", "--db", db));
        StringBuilder script = new StringBuilder("mount -t tmpfs -o size=3m tmpfs " + quote(full.toString()) + " || exit 97;");
        for (List<String> args : commands) {
            script.append(" ").append(String.join(" ", MainProcess.command(List.of(), args).stream()
                    .map(StoreFullDiskTest::quote).toList()))
                    .append("; echo \"exit $?\"; echo '" + SEPARATOR + "'; echo '" + SEPARATOR + "' >&2;");
        }
        Cli.Result r = MainProcess.run(List.of("unshare", "-m", "sh", "-c", script.toString()));
        assertEquals(0, r.exit(), r::describe);
        String[] outs = r.out().split(SEPARATOR + "\n", -1);
        String[] errs = r.err().split(SEPARATOR + "\n", -1);
        assertEquals(4, outs.length, r::describe);
        List<Cli.Result> results = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String out = outs[i];
            int exit = Integer.parseInt(out.substring(out.lastIndexOf("exit ") + 5).strip());
            results.add(new Cli.Result(exit, out, errs[i]));
            Cli.assertExit(0, results.get(i));
            assertFalse(errs[i].contains("TransactionContext"), results.get(i)::describe);
        }
        assertTrue(results.get(0).err().contains("what was loaded could not be written into the store " + db
                + " (its disk is full)"), results.get(0)::describe);
        assertTrue(results.get(1).err().contains("cannot be written (its disk is full)"), results.get(1)::describe);
        assertTrue(results.get(1).out().contains("report.json"), results.get(1)::describe);
        assertTrue(results.get(2).out().contains("files: 1"), results.get(2)::describe);
    }

    private static String quote(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }
}
