package dev.steptrace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The top-level help lists every command with a whole sentence, and a mistyped name gets the name it was meant for. */
class CommandLineHelpTest {
    /** Every command, the launcher's {@code spark} included. */
    private static final List<String> COMMANDS = List.of("ingest", "report", "diff", "decide", "timeline", "whatif",
            "query", "export", "spark", "taxonomy", "synth", "bench", "help");

    @Test
    void topLevelHelpListsEveryCommandWithASentence() {
        Cli.Result r = Cli.run("--help");
        assertEquals(0, r.exit(), r.describe());
        Map<String, String> listed = commandList(r.out());
        assertEquals(COMMANDS, List.copyOf(listed.keySet()), r.out());
        listed.forEach((name, summary) -> {
            assertTrue(summary.endsWith("."), name + ": a whole sentence: " + summary);
            assertEquals(summary.chars().filter(c -> c == '(').count(), summary.chars().filter(c -> c == ')').count(),
                    name + ": no sentence cut inside parentheses: " + summary);
            assertTrue(Character.isUpperCase(summary.charAt(0)), name + ": " + summary);
            // picocli wraps at a full stop too: "docs/scenarios.md" would print as "docs/scenarios." and "md"
            assertFalse(summary.matches(".*\\.\\s[a-z].*"), name + ": a word cut at a dot: " + summary);
        });
    }

    /** The README's row of each command: every command has one, and ingest's names all of its options. */
    @Test
    void readmeListsTheCommandsAndIngestOptions() throws Exception {
        String readme = Files.readString(TestData.repoRoot().resolve("README.md"));
        for (String command : COMMANDS) {
            if (!command.equals("help")) {
                assertTrue(readme.contains("\n| `" + command + " ") || readme.contains("\n| `" + command + "`"),
                        "README's command table has no row for " + command);
            }
        }
        String row = readme.lines().filter(l -> l.startsWith("| `ingest ")).findFirst().orElseThrow();
        Cli.Result help = Cli.run("ingest", "--help");
        Matcher option = Pattern.compile("(?<![\\w-])--[a-z][a-z-]*").matcher(help.out());
        while (option.find()) {
            String name = option.group();
            if (!List.of("--help", "--version", "--debug", "--quiet").contains(name)) {
                assertTrue(row.contains(name), "README's ingest row lacks " + name + ": " + row);
            }
        }
    }

    @Test
    void mistypedCommandGetsASuggestion() {
        Cli.Result r = Cli.run("reprot");
        assertEquals(Main.USAGE, r.exit(), r.describe());
        assertEquals("steptrace: unknown command 'reprot'; did you mean report? (see steptrace --help)", r.err().strip());
        assertEquals("", r.out());
    }

    @Test
    void mistypedOptionGetsASuggestion() {
        for (String typo : List.of("--ouput", "--ouput=x", "--otu")) {
            Cli.Result r = Cli.run("report", "traces", typo, "x");
            assertEquals(Main.USAGE, r.exit(), r.describe());
            String err = r.err().strip();
            assertEquals(1, err.lines().count(), err);
            assertTrue(err.startsWith("steptrace: ") && err.contains("; did you mean --out? (see steptrace report --help)"),
                    typo + ": " + err);
        }
        Cli.Result r = Cli.run("report", "traces", "--fromat", "md");
        assertTrue(r.err().contains("did you mean --format?"), r.describe());
    }

    @Test
    void farFromEveryNameGetsNoGuess() {
        Cli.Result r = Cli.run("xyz");
        assertEquals(Main.USAGE, r.exit(), r.describe());
        assertEquals("steptrace: unknown command 'xyz' (see steptrace --help)", r.err().strip());
    }

    @Test
    void suggestionsAreTheNearestNames() {
        List<String> commands = List.of("ingest", "report", "diff", "decide", "help");
        assertEquals(List.of("ingest"), Suggestions.closest("ingst", commands));
        assertEquals(List.of("report"), Suggestions.closest("rep", commands));
        assertEquals(List.of("diff"), Suggestions.closest("dif", commands));
        assertEquals(List.of(), Suggestions.closest("zzz", commands));
        assertEquals(1, Suggestions.edits("reprot", "report"));
        assertEquals(2, Suggestions.edits("ouput", "out"));
    }

    @Test
    void sparkFromTheJarSaysWhereTheApplicationIs() {
        Cli.Result r = Cli.run("spark", "traces", "--out", "x");
        assertEquals(Main.USAGE, r.exit(), r.describe());
        assertTrue(r.err().strip().startsWith("steptrace: spark runs through the steptrace launcher"), r.describe());
    }

    /** The "Commands:" section: each command and its summary, the summary's wrapped lines joined. */
    private static Map<String, String> commandList(String help) {
        Map<String, String> listed = new LinkedHashMap<>();
        String current = null;
        boolean inList = false;
        for (String line : help.lines().toList()) {
            if (line.equals("Commands:")) {
                inList = true;
            } else if (inList && line.matches("  \\S.*")) {
                String[] parts = line.strip().split("\\s+", 2);
                current = parts[0];
                listed.put(current, parts.length > 1 ? parts[1] : "");
            } else if (inList && current != null && line.startsWith("    ")) {
                listed.merge(current, line.strip(), (a, b) -> a + " " + b);
            } else if (inList) {
                break;
            }
        }
        return listed;
    }
}
