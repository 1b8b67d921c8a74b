package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.store.DuckDb;
import dev.steptrace.common.Messages;
import dev.steptrace.store.DuckDb;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.MainProcess;
import dev.steptrace.testsupport.NsysExport;
import dev.steptrace.testsupport.NsysFixtures;
import dev.steptrace.testsupport.Programs;
import dev.steptrace.testsupport.StoreDb;
import dev.steptrace.testsupport.TraceOracle;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bad-input corpus: every row of the table in {@code src/test/resources/bad-input/README.md} run
 * through the real command line and checked column by column. The README is the one list of cases
 * (what each file is, what it must do); this class only knows how to build the cases marked
 * {@code made} and how to read the columns. Expected values were worked out by hand from the files'
 * construction, never copied from a run.
 *
 * <p>Some environment faults need a second process: permissions do not stop root, so as root those
 * cases run without the capabilities that bypass them ({@code setpriv}); a full disk is a small tmpfs
 * in a private mount namespace ({@code unshare -m}); the million-name case runs with the launcher's Java
 * options ({@code analyzer/jvm.options}: a heap of 512 MB at most), the heap-exhausted case at {@code -Xmx64m}. A case that cannot be provoked here is skipped with a message saying why.
 */
class BadInputCorpusTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CORPUS = "/bad-input/";
    private static final Pattern EVENTS = Pattern.compile("events ([0-9,\\-]+)");
    private static final Pattern ANOMALY = Pattern.compile("anomaly (\\S+)=(\\d+)");

    @TempDir
    Path tmp;

    /** One row of the README's table. */
    record Case(String name, String what, String input, String run, int exit, String status, String reason,
                String rows) {
        boolean made() {
            return input.equals("made");
        }

        String command() {
            return run.split(" ", 2)[0];
        }

        @Override
        public String toString() {
            return name;
        }
    }

    // ---- the one list ----

    @TestFactory
    Stream<DynamicTest> everyCaseOfTheCorpus() throws IOException {
        return cases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> run(c)));
    }

    /** The README and the directory cannot disagree: every file is a case's input, every input a file. */
    @Test
    void everyCorpusFileIsACaseAndEveryCaseFileExists() throws Exception {
        Set<String> named = new TreeSet<>();
        for (Case c : cases()) {
            if (!c.made()) {
                named.add(c.input());
                assertNotNull(BadInputCorpusTest.class.getResource(CORPUS + c.input()), c + ": no file " + c.input());
            }
        }
        Set<String> present = new TreeSet<>();
        try (Stream<Path> files = Files.list(corpusDir())) {
            files.map(p -> p.getFileName().toString()).filter(n -> !n.equals("README.md")).forEach(present::add);
        }
        assertEquals(present, named, "files of bad-input/ and inputs of its README's table");
    }

    /**
     * Every file case ingested at once, beside the complete trace: each gets its own status, the good
     * ones load, and the run succeeds.
     */
    @Test
    void everyFileCaseIngestedTogetherKeepsItsStatus() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("together"));
        Map<String, String> expected = new LinkedHashMap<>();
        for (Case c : cases()) {
            if (!c.made() && c.command().equals("ingest") && !c.status().equals("-")) {
                copy(c.input(), dir.resolve(c.input()));
                expected.put(c.input(), c.status());
            }
        }
        Cli.Result r = Cli.ingestJson(tmp.resolve("together.duckdb"), dir);
        Cli.assertExit(0, r);
        Map<String, String> actual = new LinkedHashMap<>();
        for (JsonNode f : r.json().path("files")) {
            actual.put(Path.of(f.path("path").asText()).getFileName().toString(), f.path("status").asText());
        }
        assertEquals(new TreeSet<>(expected.entrySet().stream().map(Object::toString).toList()),
                new TreeSet<>(actual.entrySet().stream().map(Object::toString).toList()), r::describe);
        try (StoreDb s = StoreDb.open(tmp.resolve("together.duckdb"))) {
            s.assertQueryable();
        }
    }

    static List<Case> cases() throws IOException {
        String readme;
        try (InputStream in = BadInputCorpusTest.class.getResourceAsStream(CORPUS + "README.md")) {
            assertNotNull(in, "no bad-input/README.md");
            readme = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<Case> out = new ArrayList<>();
        boolean inTable = false;
        for (String line : readme.split("\n")) {
            if (line.startsWith("| case |")) {
                inTable = true;
                continue;
            }
            if (!inTable || line.startsWith("|---")) {
                continue;
            }
            if (!line.startsWith("|")) {
                break;
            }
            List<String> cells = cells(line);
            assertEquals(8, cells.size(), () -> "README row with " + cells.size() + " cells: " + line);
            out.add(new Case(cells.get(0), cells.get(1), code(cells.get(2)), code(cells.get(3)),
                    Integer.parseInt(cells.get(4)), cells.get(5), cells.get(6), cells.get(7)));
        }
        assertTrue(out.size() > 40, "the README's table has only " + out.size() + " rows");
        assertEquals(out.size(), out.stream().map(Case::name).distinct().count(), "case names repeat");
        return out;
    }

    /** A Markdown table row's cells: split on pipes that are not escaped. */
    private static List<String> cells(String line) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        for (int i = 1; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (ch == '\\' && i + 1 < line.length() && line.charAt(i + 1) == '|') {
                cell.append('|');
                i++;
            } else if (ch == '|') {
                cells.add(cell.toString().strip());
                cell.setLength(0);
            } else {
                cell.append(ch);
            }
        }
        return cells;
    }

    private static String code(String cell) {
        return cell.startsWith("`") && cell.endsWith("`") ? cell.substring(1, cell.length() - 1) : cell;
    }

    // ---- one case ----

    /** Where a case runs, and what it needs from the machine. */
    enum Mode {
        /** In this JVM. */
        HERE,
        /** Where permissions stop the process: here, or as root in a process without the capabilities that bypass them. */
        UNPRIVILEGED,
        /** A process whose output or store directory is a full disk. */
        FULL_DISK,
        /** A process at a small heap: the launcher's, unless the recipe says. */
        SMALL_HEAP,
        /** A process whose home directory is the case's own {@code home}: what it writes there is seen. */
        OWN_HOME
    }

    /** What a case's recipe built: the paths that fill the run's placeholders, and how it runs. */
    static final class Setup {
        /** The case's own directory. */
        final Path root;
        Path input;
        /** A second input, where the run names {@code OTHER}. */
        Path other;
        /** The file whose status and reason the row states (the input itself unless a recipe says). */
        Path subject;
        final Path db;
        Path out;
        /** The directory on a full disk, and how big that disk is. */
        Path full;
        String fullSize;
        Mode mode = Mode.HERE;
        /** The Java options of a {@link Mode#SMALL_HEAP} process: the launcher's, unless the recipe says. */
        List<String> javaOptions = List.of("@" + TestData.repoRoot().resolve("analyzer").resolve("jvm.options"));
        Consumer<Result> after = r -> { };

        Setup(Path root) {
            this.root = root;
            this.db = root.resolve("store").resolve("steptrace.duckdb");
            this.out = root.resolve("out");
        }
    }

    /** What a run printed, from this JVM or another process. */
    record Result(int exit, String out, String err) {
        String describe() {
            return "exit " + exit + "\n--- stdout:\n" + out + "\n--- stderr:\n" + err;
        }
    }

    private void run(Case c) throws Exception {
        Setup s = new Setup(Files.createDirectories(tmp.resolve(c.name())));
        Files.createDirectories(s.db.getParent());
        Files.write(s.root.resolve("a-file"), new byte[] {1});
        if (c.made()) {
            recipe(c, s);
        } else {
            Path dir = Files.createDirectories(s.root.resolve("traces"));
            s.input = dir.resolve(c.input());
            copy(c.input(), s.input);
        }
        if (s.subject == null) {
            s.subject = s.input;
        }
        if (c.command().equals("query") && !c.made()) {
            Cli.assertExit(0, Cli.ingestJson(s.db, s.input));
        }
        Result r = steptrace(s, args(c, s));
        String all = r.out() + r.err();
        assertEquals(c.exit(), r.exit(), () -> c + ": " + r.describe());
        assertFalse(Pattern.compile("(?m)^\\s+at [\\w$.<>]+\\(|^Caused by: |Exception in thread ").matcher(r.err()).find(),
                () -> c + ": stack trace\n" + r.describe());
        assertFalse(all.contains("internal error"), () -> c + ": " + r.describe());
        String printed = all + documents(s.out);
        assertFalse(printed.chars().anyMatch(ch -> ch == 0x1B || ch == 0x9B || ch == 0x202E),
                () -> c + ": a character that drives a terminal was printed\n" + printed);
        for (String line : r.err().split("\n")) {
            assertTrue(line.isBlank() || line.startsWith("steptrace: "), () -> c + ": stray stderr line " + line);
        }
        if (c.command().equals("ingest") && !c.status().equals("-")) {
            checkIngest(c, s, r);
        } else if (!c.reason().equals("-")) {
            String where = all + documents(s.out);
            assertTrue(where.contains(c.reason()), () -> c + ": no '" + c.reason() + "' in\n" + r.describe() + where);
        }
        checkRows(c, s);
        s.after.accept(r);
    }

    private List<String> args(Case c, Setup s) {
        List<String> args = new ArrayList<>();
        Map<String, String> placeholders = Map.of("IN", s.input.toString(), "OUT", s.out.toString(),
                "FILE", s.root.resolve("a-file").toString(), "OTHER", String.valueOf(s.other));
        for (String a : split(c.run())) {
            String word = placeholders.getOrDefault(a, a);
            // Inside SQL only the quoted form: IN is also a keyword.
            args.add(word.replace("'IN'", "'" + s.input + "'"));
        }
        if (!c.command().equals("bench")) {
            args.add("--db");
            args.add(s.db.toString());
        }
        if (c.command().equals("ingest") && !c.status().equals("-")) {
            args.add("--json");
        }
        if (c.command().equals("ingest") || c.command().equals("report")) {
            args.add("--quiet");
        }
        return args;
    }

    private void checkIngest(Case c, Setup s, Result r) throws Exception {
        JsonNode file = null;
        for (JsonNode f : JSON.readTree(r.out()).path("files")) {
            if (Path.of(f.path("path").asText()).getFileName().equals(s.subject.getFileName())) {
                file = f;
            }
        }
        assertNotNull(file, () -> c + ": " + s.subject.getFileName() + " is not in\n" + r.describe());
        assertEquals(c.status(), file.path("status").asText(), c + ": " + r.describe());
        Matcher anomaly = ANOMALY.matcher(c.reason());
        if (anomaly.matches()) {
            try (StoreDb db = StoreDb.open(s.db)) {
                JsonNode a = JSON.readTree(db.string("SELECT anomalies FROM files WHERE path = '"
                        + s.subject.toRealPath() + "'"));
                assertEquals(Long.parseLong(anomaly.group(2)), a.path(anomaly.group(1)).asLong(), c + ": " + a);
            }
        } else if (!c.reason().equals("-")) {
            String reason = file.path("reason").asText();
            assertTrue(reason.contains(c.reason()), () -> c + ": reason '" + reason + "'");
            assertTrue(r.err().contains(Messages.printable(s.subject.getFileName().toString()) + ": " + reason),
                    () -> c + ": stderr does not name the file with its reason\n" + r.describe());
        } else {
            assertTrue(file.path("reason").isNull(), () -> c + ": " + r.describe());
        }
    }

    /** The store's event rows as the row says: base.json's events by number, a count, or not checked. */
    private void checkRows(Case c, Setup s) throws Exception {
        if (c.rows().equals("-")) {
            return;
        }
        if (!Files.exists(s.db)) {
            assertEquals("0", c.rows(), c + ": no store written");
            return;
        }
        try (StoreDb db = StoreDb.open(s.db)) {
            db.assertQueryable();
            Map<String, Integer> rows = TraceOracle.storeRows(db.connection());
            Matcher events = EVENTS.matcher(c.rows());
            if (events.matches()) {
                Map<String, Integer> expected = baseRows(events.group(1));
                assertEquals(expected, rows, () -> c + ": missing " + TraceOracle.missing(expected, rows)
                        + ", unexpected " + TraceOracle.missing(rows, expected));
            } else {
                assertEquals(Long.parseLong(c.rows()), TraceOracle.total(rows), c.toString());
            }
        }
    }

    /** The rows of base.json's events with these numbers (1-based, as its README numbers them). */
    private static Map<String, Integer> baseRows(String numbers) throws IOException {
        TraceOracle.Trace base = TraceOracle.of("base.json", bytes("base.json"));
        Map<String, Integer> out = new HashMap<>();
        for (String part : numbers.split(",")) {
            String[] range = part.split("-");
            int from = Integer.parseInt(range[0]);
            int to = Integer.parseInt(range[range.length - 1]);
            for (int n = from; n <= to; n++) {
                String row = base.events.get(n - 1).row();
                assertNotNull(row, "base.json's event " + n + " makes no row");
                out.merge(row, 1, Integer::sum);
            }
        }
        return out;
    }

    /** The text of the documents a report wrote, for reasons that are in them. */
    private static String documents(Path out) throws IOException {
        if (!Files.isDirectory(out)) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        for (String name : List.of("report.json", "report.md")) {
            Path f = out.resolve(name);
            if (Files.isRegularFile(f)) {
                sb.append("\n--- ").append(name).append(":\n").append(Files.readString(f));
            }
        }
        return sb.toString();
    }

    // ---- the cases the test makes ----

    private void recipe(Case c, Setup s) throws Exception {
        Path dir = Files.createDirectories(s.root.resolve("capture"));
        Path base = dir.resolve("rank0.pt.trace.json");
        copy("base.json", base);
        s.input = dir;
        switch (c.name()) {
            case "unreadable-file" -> {
                s.subject = dir.resolve("rank1.pt.trace.json");
                copy("unescaped-quote.json", s.subject);
                Files.setPosixFilePermissions(s.subject, PosixFilePermissions.fromString("---------"));
                s.mode = Mode.UNPRIVILEGED;
            }
            case "unreadable-directory" -> {
                s.subject = Files.createDirectories(dir.resolve("more"));
                copy("unescaped-quote.json", s.subject.resolve("rank1.pt.trace.json"));
                Files.setPosixFilePermissions(s.subject, PosixFilePermissions.fromString("---------"));
                s.mode = Mode.UNPRIVILEGED;
            }
            case "fifo", "fifo-alone" -> {
                s.subject = dir.resolve("rank1.pt.trace.json");
                exec("mkfifo", s.subject.toString());
                if (c.name().equals("fifo-alone")) {
                    Files.delete(base);
                    s.input = s.subject;
                }
            }
            case "device" -> {
                s.subject = Files.createSymbolicLink(dir.resolve("rank1.pt.trace.json"), Path.of("/dev/zero"));
            }
            case "broken-link" -> {
                s.subject = Files.createSymbolicLink(dir.resolve("rank1.pt.trace.json"), dir.resolve("gone.json"));
            }
            case "read-only-store-report", "read-only-store-query", "read-only-store-ingest",
                 "read-only-store-never-analysed" -> {
                Cli.assertExit(0, c.name().endsWith("-never-analysed")
                        ? Cli.run("ingest", dir.toString(), "--db", s.db.toString(), "--no-analysis", "--quiet")
                        : Cli.ingestJson(s.db, dir));
                if (c.name().endsWith("-ingest")) {
                    s.subject = dir.resolve("rank1.pt.trace.json");
                    copy("unescaped-quote.json", s.subject);
                }
                Files.setPosixFilePermissions(s.db, PosixFilePermissions.fromString("r--r--r--"));
                Files.setPosixFilePermissions(s.db.getParent(), PosixFilePermissions.fromString("r-xr-xr-x"));
                s.mode = Mode.UNPRIVILEGED;
                s.after = r -> assertFalse(Files.exists(Path.of(s.db + ".wal")), "a read-only store got a WAL");
            }
            case "foreign-database" -> {
                try (Connection db = DuckDb.connect(s.db, new Properties());
                     Statement st = db.createStatement()) {
                    st.execute("CREATE TABLE files (a INTEGER)");
                    st.execute("CREATE TABLE mine (x INTEGER)");
                    st.execute("INSERT INTO mine VALUES (42)");
                }
                byte[] before = Files.readAllBytes(s.db);
                s.after = r -> {
                    try {
                        assertArrayEquals(before, Files.readAllBytes(s.db), "the foreign database changed");
                        assertFalse(Files.exists(Path.of(s.db + ".wal")), "the foreign database got a WAL");
                    } catch (IOException e) {
                        fail(e);
                    }
                };
            }
            case "tampered-store-dropped-table", "tampered-store-null-rank", "tampered-store-column-type" -> {
                Cli.assertExit(0, Cli.run("report", dir.toString(), "--db", s.db.toString(), "--out",
                        s.root.resolve("first").toString(), "--format", "json", "--quiet"));
                String change = switch (c.name()) {
                    case "tampered-store-dropped-table" -> "DROP TABLE step_metrics";
                    case "tampered-store-null-rank" -> "UPDATE step_metrics SET rank = NULL";
                    default -> "ALTER TABLE files ALTER rank TYPE VARCHAR";
                };
                try (Connection db = DuckDb.connect(s.db, new Properties()); Statement st = db.createStatement()) {
                    st.execute(change);
                }
                byte[] before = Files.readAllBytes(s.db);
                s.after = r -> {
                    assertSame(before, s.db);
                    assertFalse(Files.exists(s.out), "an output was written");
                };
            }
            case "out-not-writable" -> {
                Files.createDirectories(s.out);
                Files.setPosixFilePermissions(s.out, PosixFilePermissions.fromString("r-xr-xr-x"));
                s.mode = Mode.UNPRIVILEGED;
                s.after = r -> assertEquals("", listing(s.out), "documents left in the unwritable --out");
            }
            case "out-full-disk" -> {
                s.full = Files.createDirectories(s.out);
                s.fullSize = "64k";
                s.mode = Mode.FULL_DISK;
                s.after = r -> noHalfDocuments(r, s.out);
            }
            case "export-full-disk" -> {
                Files.delete(base);
                Files.copy(sampleTrace(), dir.resolve("rank0.pt.trace.json.gz"));
                Cli.assertExit(0, Cli.ingestJson(s.db, dir));
                s.full = Files.createDirectories(s.out);
                // Room for some of the tables, not for all.
                s.fullSize = "256k";
                s.mode = Mode.FULL_DISK;
                s.after = r -> {
                    noHalfDocuments(r, s.out);
                    int parquet = 0;
                    for (String line : r.out().split("\n")) {
                        if (line.startsWith("document: ") && line.contains(".parquet ")) {
                            parquet++;
                            assertTrue(line.endsWith(" PAR1"), "a Parquet file cut short: " + line);
                        }
                    }
                    assertTrue(parquet > 0, "the disk was full before any table: nothing shown\n" + r.describe());
                };
            }
            case "store-full-disk" -> {
                Files.delete(base);
                Files.copy(sampleTrace(), dir.resolve("rank0.pt.trace.json.gz"));
                s.subject = dir.resolve("rank0.pt.trace.json.gz");
                s.full = s.db.getParent();
                // Room for an empty store, not for the trace's rows.
                s.fullSize = "300k";
                s.mode = Mode.FULL_DISK;
                s.after = r -> assertFalse(r.err().contains("no usable trace"), r.describe());
            }
            case "million-names" -> {
                Files.delete(base);
                writeMillionNames(dir.resolve("rank0.pt.trace.json"));
                s.mode = Mode.SMALL_HEAP;
            }
            case "heap-exhausted" -> {
                s.subject = dir.resolve("rank1.pt.trace.json");
                writeHugeName(s.subject);
                s.mode = Mode.SMALL_HEAP;
                s.javaOptions = List.of("-Xmx64m", "-XX:+UseParallelGC");
            }
            case "control-chars-in-paths", "control-chars-in-written-paths", "control-chars-in-timeline-path" -> {
                Path named = Files.move(dir, s.root.resolve("capture\u001b[2J\u202e"));
                s.input = named;
                s.subject = named.resolve("not\u001b[31mjson.json");
                Files.writeString(s.subject, "not a trace\n");
                s.out = s.root.resolve("out\u001b[2J");
                if (c.name().equals("control-chars-in-paths")) {
                    // The per-file table names the capture (the directory) and the file.
                    s.after = r -> assertTrue(r.out().contains("capture\\x1b[2J\\u202e/rank0.pt.trace.json"), r.describe());
                }
            }
            case "sqlite-as-db" -> {
                try (Connection lite = DriverManager.getConnection("jdbc:sqlite:" + s.db); Statement st = lite.createStatement()) {
                    st.execute("CREATE TABLE files (a INTEGER)");
                }
                byte[] before = Files.readAllBytes(s.db);
                Path home = Files.createDirectories(s.root.resolve("home"));
                s.mode = Mode.OWN_HOME;
                s.after = r -> {
                    assertFalse(Files.exists(home.resolve(".duckdb")), "DuckDB went for an extension");
                    assertSame(before, s.db);
                };
            }
            case "fifo-as-db" -> exec("mkfifo", s.db.toString());
            case "empty-file-as-db" -> {
                Files.createFile(s.db);
                s.after = r -> assertSame(new byte[0], s.db);
            }
            case "capture-names-leave-out" -> {
                Files.move(base, Files.createDirectories(dir.resolve("a")).resolve("rank0.pt.trace.json"));
                copy("base.json", Files.createDirectories(dir.resolve("b")).resolve("rank0.pt.trace.json"));
                Cli.assertExit(0, Cli.ingestJson(s.db, dir));
                try (Connection db = DuckDb.connect(s.db, new Properties()); Statement st = db.createStatement()) {
                    assertEquals(1, st.executeUpdate("UPDATE captures SET name = '../../x' WHERE name = 'a'"));
                    assertEquals(1, st.executeUpdate("UPDATE captures SET name = '..' WHERE name = 'b'"));
                }
                s.out = s.root.resolve("deep").resolve("out");
                s.after = r -> {
                    assertEquals(Set.of("..%2F..%2Fx", "%2E%2E", "index.json"), Set.of(s.out.toFile().list()), r.describe());
                    assertFalse(Files.exists(s.root.resolve("x")), "written outside --out");
                    assertEquals(List.of("out"), List.of(s.out.getParent().toFile().list()), "written beside --out");
                };
            }
            case "nsys-text-in-integer-column" -> {
                s.subject = dir.resolve("rank1.sqlite");
                NsysFixtures.write(NsysFixtures.tensorParallelRank(1, true), NsysExport.Container.SQLITE, s.subject);
                try (Connection lite = DriverManager.getConnection("jdbc:sqlite:" + s.subject); Statement st = lite.createStatement()) {
                    assertEquals(1, st.executeUpdate("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'abc'"
                            + " WHERE rowid = (SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)"));
                }
            }
            case "nsys-recursive-view" -> {
                s.subject = dir.resolve("rank1.sqlite");
                NsysFixtures.write(NsysFixtures.tensorParallelRank(1, true), NsysExport.Container.SQLITE, s.subject);
                try (Connection lite = DriverManager.getConnection("jdbc:sqlite:" + s.subject); Statement st = lite.createStatement()) {
                    st.execute("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO kernels_table");
                    st.execute("CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL"
                            + " SELECT i + 1 FROM n) SELECT k.* FROM kernels_table k, n");
                }
            }
            case "nsys-hot-wal", "nsys-wal-file" -> {
                Path live = s.root.resolve("live.sqlite");
                NsysFixtures.write(NsysFixtures.tensorParallelRank(1, true), NsysExport.Container.SQLITE, live);
                Path copy = dir.resolve("rank1.sqlite");
                try (Connection lite = DriverManager.getConnection("jdbc:sqlite:" + live); Statement st = lite.createStatement()) {
                    st.execute("PRAGMA journal_mode = WAL");
                    st.execute("PRAGMA wal_autocheckpoint = 0");
                    st.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1");
                    // Copied while open: the database file without the change, its log with it.
                    Files.copy(live, copy);
                    Files.copy(Path.of(live + "-wal"), Path.of(copy + "-wal"));
                }
                s.subject = c.name().equals("nsys-hot-wal") ? copy : Path.of(copy + "-wal");
            }
            case "diff-no-shared-phase" -> {
                s.other = Files.createDirectories(s.root.resolve("decode")).resolve("rank0.pt.trace.json");
                Files.writeString(s.other, new String(bytes("base.json"), StandardCharsets.UTF_8)
                        .replace("ProfilerStep#2", "execute_context_0(0)_generation_1(1)"));
                s.other = s.other.getParent();
            }
            case "scenario-subcategory-typo" -> {
                String bundled;
                try (InputStream in = BadInputCorpusTest.class.getResourceAsStream(
                        "/dev/steptrace/decide/scenarios/pcie-allreduce-tax.yaml")) {
                    bundled = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                assertTrue(bundled.contains("  tax: allreduce\n"), "the bundled scenario's tax moved");
                // FILE: the scenario, where the run names it.
                Files.writeString(s.root.resolve("a-file"), bundled.replace("  tax: allreduce\n", "  tax: allreduce/custon\n"));
            }
            case "partial-rank-steps" -> {
                Files.delete(base);
                Path synth = s.root.resolve("synth");
                Cli.assertExit(0, Cli.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "6",
                        "--out", synth.toString(), "-q"));
                for (Path f : Files.newDirectoryStream(synth, "*rank*.pt.trace.json.gz")) {
                    byte[] json;
                    try (InputStream in = new GZIPInputStream(Files.newInputStream(f))) {
                        json = in.readAllBytes();
                    }
                    boolean cut = f.getFileName().toString().contains("rank1");
                    Files.write(dir.resolve(cut ? "rank1.pt.trace.json" : "rank0.pt.trace.json"),
                            cut ? Arrays.copyOf(json, json.length * 6 / 10) : json);
                }
                s.after = r -> {
                    try {
                        JsonNode report = JSON.readTree(s.out.resolve("report.json").toFile());
                        JsonNode rank0 = report.at("/ranks/0/phases/decode");
                        JsonNode rank1 = report.at("/ranks/1/phases/decode");
                        assertEquals(6, rank0.path("steps").asInt(), "rank 0 has every step");
                        assertTrue(rank1.path("steps").asInt() < 6, "rank 1's steps past its cut were counted: " + rank1);
                        double mean0 = rank0.at("/kernel_ms_per_step/mean").asDouble();
                        double mean1 = rank1.at("/kernel_ms_per_step/mean").asDouble();
                        // Synth's steps are alike: the steps rank 1 has measure what rank 0's do.
                        assertEquals(mean0, mean1, mean0 * 0.05, "rank 1's mean per step");
                    } catch (IOException e) {
                        fail(e);
                    }
                };
            }
            case "own-outputs-not-inputs" -> {
                Cli.assertExit(0, Cli.run("report", dir.toString(), "--out", dir.resolve("steptrace-out").toString(),
                        "--db", s.db.toString(), "--quiet"));
                Cli.assertExit(0, Cli.run("timeline", dir.toString(), "--out", dir.resolve("mine/t.json.gz").toString(),
                        "--db", s.db.toString(), "--quiet"));
                String written = listing(dir.resolve("steptrace-out"));
                assertTrue(written.contains("document: report.json") && written.contains("document: timeline-"), written);
            }
            case "taxonomy-catastrophic-regex" -> Files.writeString(s.root.resolve("a-file"), """
                    - id: slow_rule
                      match: '(.?.?.?.?.?.?.?.?){8}(!x)'
                      category: gemm
                      subcategory: slow
                    """);
            case "device-peaks-catastrophic-regex" -> Files.writeString(s.root.resolve("a-file"), """
                    version: 1
                    sources:
                      mine: {title: 'a measurement', url: 'https://example.com/peaks'}
                    devices:
                      - id: slow-gpu
                        label: Slow GPU
                        match: '(.?.?.?.?.?.?.?.?){8}!x'
                        source: mine
                        bf16_tflops: 1
                    """);
            default -> fail("no recipe for the made case " + c + ": add one to " + getClass().getSimpleName());
        }
    }

    /** One million kernels, each with a name of its own (130 characters), one ProfilerStep around them. */
    private static void writeMillionNames(Path file) throws IOException {
        int n = 1_000_000;
        String prefix = "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<"
                + "at::native::BinaryFunctor<float, float, float>>>_";
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.US_ASCII)) {
            w.write("{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": 0, \"world_size\": 1}, \"traceEvents\": [\n");
            w.write("{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1,"
                    + " \"ts\": 1000, \"dur\": " + (2 * n + 10) + "},\n");
            for (int i = 0; i < n; i++) {
                w.write("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + prefix + String.format("%07d", i)
                        + "(int)\", \"pid\": 0, \"tid\": 7, \"ts\": " + (1001 + 2L * i) + ", \"dur\": 1}"
                        + (i + 1 < n ? ",\n" : "\n"));
            }
            w.write("]}\n");
        }
    }

    /**
     * One kernel named with 15 million characters (under the reader's 16 Mi limit on a string): the parser's
     * buffers and the name's copies take several times that, more than a 64 MiB heap holds.
     */
    static void writeHugeName(Path file) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.US_ASCII)) {
            w.write("{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": 1, \"world_size\": 2}, \"traceEvents\": [\n");
            w.write("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"");
            w.write("k".repeat(15_000_000));
            w.write("\", \"pid\": 0, \"tid\": 7, \"ts\": 1000, \"dur\": 1}\n]}\n");
        }
    }

    /** The file holds exactly these bytes: left as it was. */
    private static void assertSame(byte[] before, Path file) {
        try {
            assertArrayEquals(before, Files.readAllBytes(file), file + " changed");
            assertFalse(Files.exists(Path.of(file + ".wal")), file + " got a WAL");
        } catch (IOException e) {
            fail(e);
        }
    }

    private static void noHalfDocuments(Result r, Path out) {
        // The listing comes from inside the process that had the full disk (a tmpfs vanishes with it).
        for (String line : (r.out() + "\n" + listing(out)).split("\n")) {
            if (line.startsWith("document: ")) {
                String[] f = line.substring("document: ".length()).split(" ");
                assertFalse(f[0].contains(".tmp"), "a temporary file was left: " + line);
                assertFalse(f[1].equals("0"), "an empty document was left: " + line);
            }
        }
    }

    private static String listing(Path dir) {
        if (!Files.isDirectory(dir)) {
            return "";
        }
        try (Stream<Path> files = Files.list(dir)) {
            StringBuilder sb = new StringBuilder();
            for (Path p : files.toList()) {
                sb.append("document: ").append(p.getFileName()).append(' ').append(Files.size(p)).append('\n');
            }
            return sb.toString();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    // ---- running steptrace ----

    private Result steptrace(Setup s, List<String> args) throws Exception {
        switch (s.mode) {
            case HERE:
                return here(args);
            case UNPRIVILEGED:
                if (!PERMISSIONS_BYPASSED) {
                    return here(args);
                }
                Assumptions.assumeTrue(SETPRIV, "running as root, where mode 000 does not stop reads, and setpriv"
                        + " cannot drop the capabilities that bypass permissions here: case not provoked");
                List<String> cmd = new ArrayList<>(List.of("setpriv", "--inh-caps=-dac_override,-dac_read_search",
                        "--bounding-set=-dac_override,-dac_read_search"));
                cmd.addAll(MainProcess.command(List.of(), args));
                return process(cmd);
            case SMALL_HEAP:
                return process(MainProcess.command(s.javaOptions, args));
            case OWN_HOME:
                Cli.Result home = MainProcess.run(MainProcess.command(List.of("-Duser.home=" + s.root.resolve("home")), args),
                        Map.of("HOME", s.root.resolve("home").toString()));
                return new Result(home.exit(), home.out(), home.err());
            default:
                Assumptions.assumeTrue(TMPFS, "no tmpfs can be mounted here (it needs CAP_SYS_ADMIN): the full"
                        + " disk is not provoked; OutputFilesTest covers the atomic writes it relies on");
                List<String> full = new ArrayList<>(List.of("unshare", "-m", "sh", "-c", FULL_DISK_SCRIPT
                        .replace("SIZE", s.fullSize).replace("DIR", s.full.toString()), "sh"));
                full.addAll(MainProcess.command(List.of(), args));
                return process(full);
        }
    }

    /** Runs the command, then lists what is left in DIR (from inside, where a tmpfs is still mounted). */
    private static final String FULL_DISK_SCRIPT = "mount -t tmpfs -o size=SIZE tmpfs 'DIR' || exit 97; \"$@\"; rc=$?;"
            + " cd 'DIR' && find . -type f | while read -r f; do"
            + " echo \"document: ${f#./} $(wc -c < \"$f\") $(tail -c 4 \"$f\" | tr -c 'A-Z0-9' '?')\"; done;"
            + " exit $rc";

    private static Result here(List<String> args) {
        Cli.Result r = Cli.run(args.toArray(new String[0]));
        return new Result(r.exit(), r.out(), r.err());
    }

    private static Result process(List<String> cmd) throws Exception {
        Cli.Result r = MainProcess.run(cmd);
        return new Result(r.exit(), r.out(), r.err());
    }

    /** Gives back the permissions the cases took away, so that the temporary directory can be deleted. */
    @AfterEach
    void restorePermissions() throws IOException {
        restore(tmp);
    }

    private static void restore(Path p) throws IOException {
        if (Files.isSymbolicLink(p)) {
            return;
        }
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwx------" : "rw-------"));
        if (Files.isDirectory(p)) {
            try (Stream<Path> children = Files.list(p)) {
                for (Path child : children.toList()) {
                    restore(child);
                }
            }
        }
    }

    /** Whether mode 000 fails to stop this process reading (root, or capabilities that bypass permissions). */
    private static final boolean PERMISSIONS_BYPASSED = permissionsBypassed();
    private static final boolean SETPRIV = Programs.works("setpriv", "--inh-caps=-dac_override,-dac_read_search",
            "--bounding-set=-dac_override,-dac_read_search", "true");
    /** Whether the test may mount a tmpfs in a private mount namespace (a real full disk). */
    private static final boolean TMPFS = Programs.works("unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt");

    private static boolean permissionsBypassed() {
        try {
            Path f = Files.createTempFile("steptrace-mode-000", "");
            try {
                Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("---------"));
                return Files.isReadable(f);
            } finally {
                Files.delete(f);
            }
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static void exec(String... cmd) throws Exception {
        assertTrue(Programs.works(cmd), () -> String.join(" ", cmd) + " failed");
    }

    // ---- helpers ----

    /** A command line's words: split on spaces, double quotes group. */
    private static List<String> split(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean quoted = false;
        boolean any = false;
        for (char ch : line.toCharArray()) {
            if (ch == '"') {
                quoted = !quoted;
                any = true;
            } else if (ch == ' ' && !quoted) {
                if (any) {
                    out.add(word.toString());
                }
                word.setLength(0);
                any = false;
            } else {
                word.append(ch);
                any = true;
            }
        }
        if (any) {
            out.add(word.toString());
        }
        return out;
    }

    private static Path corpusDir() throws IOException {
        try {
            return Path.of(BadInputCorpusTest.class.getResource(CORPUS + "README.md").toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
    }

    private static Path sampleTrace() {
        for (Path p : List.of(Path.of("..", "sample-traces"), Path.of("sample-traces"))) {
            Path f = p.resolve("h200-tp2-moe-decode/graph-nccl-ll/rank0.1796007184371600567.pt.trace.json.gz");
            if (Files.exists(f)) {
                return f;
            }
        }
        throw new AssertionError("no sample-traces/ beside " + Path.of("").toAbsolutePath());
    }

    private static byte[] bytes(String name) throws IOException {
        try (InputStream in = BadInputCorpusTest.class.getResourceAsStream(CORPUS + name)) {
            assertNotNull(in, "no corpus file " + name);
            return in.readAllBytes();
        }
    }

    private static void copy(String name, Path target) throws IOException {
        Files.createDirectories(target.getParent());
        Files.write(target, bytes(name));
    }
}
