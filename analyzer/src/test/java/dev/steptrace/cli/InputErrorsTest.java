package dev.steptrace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.testsupport.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kind of file a user gives that cannot be used (a rule file, device peaks, a model file, a scenario) fails
 * the same way, handled once by the command line: exit 1, one line naming the file, no stack trace, no "internal
 * error", and before any trace is read.
 */
class InputErrorsTest {
    @TempDir
    Path tmp;

    @Test
    void badFilesOfEveryKindAreOneLineEach() throws Exception {
        Path bad = Files.writeString(tmp.resolve("bad.yaml"), "rules: [ {id: 1, match: \"(\"} ]\n: :\n");
        Path db = tmp.resolve("s.duckdb");
        Path none = tmp.resolve("no-traces-here");
        Files.createDirectories(none);
        for (List<String> args : List.of(
                List.of("taxonomy", "--taxonomy", bad.toString()),
                List.of("report", none.toString(), "--db", db.toString(), "--device-peaks", bad.toString()),
                List.of("report", none.toString(), "--db", db.toString(), "--model", bad.toString()),
                List.of("decide", none.toString(), "--db", db.toString(), "--scenario", bad.toString()))) {
            Cli.Result r = Cli.run(args.toArray(String[]::new));
            String err = r.err().strip();
            assertEquals(1, r.exit(), args + ": " + r.describe());
            assertEquals(1, err.lines().count(), args + ": one line: " + err);
            assertTrue(err.startsWith("steptrace: ") && err.contains("bad.yaml"), args + ": names the file: " + err);
            assertFalse(err.contains("internal error") || err.contains("--debug"), args + ": " + err);
        }
    }
}
