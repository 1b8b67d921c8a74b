package dev.steptrace.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Runs the real command line ({@link Main#run}) in-process with stdout and stderr captured. picocli
 * creates its writers from System.out/System.err inside {@code Main.run}, so swapping the JVM's
 * streams for the duration of the call captures everything the command (or anything under it) prints.
 */
public final class Cli {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A Java stack frame line ("\tat pkg.Class.method(File.java:12)") or a chained cause. */
    private static final Pattern STACK_TRACE =
            Pattern.compile("(?m)^\\s+at [\\w$.<>]+\\(|^Caused by: |Exception in thread ");

    private Cli() {}

    public record Result(int exit, String out, String err) {
        /** stdout parsed as JSON (for {@code ingest --json}). */
        public JsonNode json() {
            try {
                return JSON.readTree(out);
            } catch (IOException e) {
                throw new AssertionError("stdout is not JSON: " + e.getMessage() + "\n--- stdout:\n" + out
                        + "\n--- stderr:\n" + err, e);
            }
        }

        /** The one entry of {@code files} whose path ends with {@code fileName}. */
        public JsonNode file(String fileName) {
            List<JsonNode> matches = new ArrayList<>();
            for (JsonNode f : json().path("files")) {
                if (Path.of(f.path("path").asText()).getFileName().toString().equals(fileName)) {
                    matches.add(f);
                }
            }
            if (matches.size() != 1) {
                fail(matches.size() + " entries for " + fileName + " in\n" + out);
            }
            return matches.get(0);
        }

        /** What stderr says, for assertion messages. */
        public String describe() {
            return "exit " + exit + "\n--- stdout:\n" + out + "\n--- stderr:\n" + err;
        }
    }

    /** Runs one command line; serialized because System.out/err are global. */
    public static synchronized Result run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setOut(o);
            System.setErr(e);
            exit = Main.run(args);
            o.flush();
            e.flush();
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** {@code steptrace ingest PATH... --db DB --json --quiet}. */
    public static Result ingestJson(Path db, Path... paths) {
        List<String> args = new ArrayList<>();
        args.add("ingest");
        for (Path p : paths) {
            args.add(p.toString());
        }
        args.add("--db");
        args.add(db.toString());
        args.add("--json");
        args.add("--quiet");
        return run(args.toArray(new String[0]));
    }

    /**
     * The rule "one clear line naming the file, no stack trace unless --debug": stderr has no stack
     * frame, and every line it has is a steptrace message.
     */
    public static void assertCleanStderr(Result r) {
        assertFalse(STACK_TRACE.matcher(r.err()).find(), () -> "stack trace on stderr:\n" + r.describe());
        for (String line : r.err().split("\n")) {
            if (!line.isBlank()) {
                assertTrue(line.startsWith("steptrace: "), () -> "stray stderr line '" + line + "'\n" + r.describe());
            }
        }
    }

    /** Exit code, clean stderr, and stdout JSON with one entry per input file. */
    public static void assertExit(int expected, Result r) {
        assertEquals(expected, r.exit(), r::describe);
        assertCleanStderr(r);
    }
}
