package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.common.StepSource;
import dev.steptrace.store.DuckDb;
import dev.steptrace.store.QueryFile;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The analysis stages tested as data, in the manner of DuckDB's sqllogictest: each file under
 * {@code stages/} (test resources) holds hand-made input rows, the stages to run, and queries with the
 * rows they must give, worked out by hand (the file's comments say how). Format:
 * <pre>
 * # a comment
 * table NAME                      one input table: the header names each column as name:TYPE,
 * col:TYPE col:TYPE ...           then one row a line, values split at white space ('quoted' for
 * v v ...                         spaces, NULL for null); a blank line ends it
 *
 * store                           creates the store's tables (schema.sql), for a stage that writes
 *                                 them; a "table" of one of them then fills the columns it names
 *
 * stage NN-name [p=v ...]         runs a stage file, with named parameters (an integer, a number
 *                                 written with a decimal point, true or false, NULL, a string, or a
 *                                 list of such a,b; a list of one is written a,);
 *                                 "stage cross-rank" creates the views of cross-rank.sql;
 *                                 "stage launch-contexts" runs LaunchContexts, the Java part of stage 22;
 *                                 "stage step-time-parts" runs StepTimeParts, that of stage 65
 *
 * query SELECT ...                the rows it gives, after ----, one a line, until a blank line or
 * ----                            the end of the file (the query orders them)
 * v v ...
 *
 * query-file NAME [p=v ...]       the same for the query file queries/NAME.sql, with its parameters
 * ----
 * v v ...
 * </pre>
 * Stage tests are under {@code stages/} ("stage macros" defines the macros alone), tests of the query files
 * under {@code queries/} (those of queries/work/ name them work/NAME); AnalysisFilesTest requires one for
 * every file.
 */
class StageDataTest {
    private static final Pattern TOKEN = Pattern.compile("'([^']*)'|(\\S+)");

    static Stream<Path> files() throws IOException, URISyntaxException {
        List<Path> files = new ArrayList<>();
        for (String kind : List.of("stages", "queries")) {
            Path dir = Path.of(StageDataTest.class.getResource(kind).toURI());
            try (Stream<Path> s = Files.walk(dir)) {
                List<Path> these = s.filter(p -> p.toString().endsWith(".test")).sorted().toList();
                assertFalse(these.isEmpty(), "no tests in " + dir);
                files.addAll(these);
            }
        }
        return files.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("files")
    void stage(Path file) throws IOException, SQLException {
        List<String> lines = Files.readAllLines(file);
        try (Connection c = DuckDb.inMemory()) {
            int i = 0;
            int queries = 0;
            while (i < lines.size()) {
                String line = lines.get(i).strip();
                String where = file.getFileName() + ":" + (i + 1);
                if (line.isEmpty() || line.startsWith("#")) {
                    i++;
                } else if (line.startsWith("table ")) {
                    i = table(c, line.substring(6).strip(), lines, i + 1);
                } else if (line.equals("store")) {
                    // the store's tables and its views (step_time_parts is one)
                    for (String script : List.of("schema.sql", "views.sql")) {
                        try (var in = getClass().getResourceAsStream("/dev/steptrace/store/" + script);
                             Statement s = c.createStatement()) {
                            s.execute(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                        }
                    }
                    i++;
                } else if (line.startsWith("stage ")) {
                    List<String> words = tokens(line.substring(6));
                    if (words.get(0).equals("cross-rank")) {
                        ViewScript.CROSS_RANK.create(c);
                    } else if (words.get(0).equals("launch-contexts")) {
                        LaunchContexts.find(c);
                    } else if (words.get(0).equals("step-time-parts")) {
                        StepTimeParts.cut(c);
                    } else if (words.get(0).equals("macros")) {
                        SqlStage.defineMacros(c);
                    } else {
                        SqlStage.load(words.get(0)).run(c, parameters(words));
                    }
                    i++;
                } else if (line.startsWith("query ") || line.startsWith("query-file ")) {
                    boolean named = line.startsWith("query-file ");
                    StringBuilder sql = new StringBuilder(line.substring(named ? 11 : 6));
                    i++;
                    while (!lines.get(i).strip().equals("----")) {
                        sql.append('\n').append(lines.get(i++));
                    }
                    List<List<String>> expected = new ArrayList<>();
                    for (i++; i < lines.size() && !lines.get(i).isBlank(); i++) {
                        expected.add(tokens(lines.get(i)));
                    }
                    List<List<String>> actual = named ? queryFile(c, tokens(sql.toString())) : rows(c, sql.toString());
                    assertEquals(render(expected), render(actual), where + ": " + sql);
                    queries++;
                } else {
                    throw new IllegalArgumentException(where + ": expected table, stage or query: " + line);
                }
            }
            assertFalse(queries == 0, file + " checks nothing");
        }
    }

    /**
     * Stage 10 and the decision memo's batch size (query batch-annotations) select the step annotations by the
     * condition the timeline uses ({@link StepSource#ANNOTATIONS}), written once in each.
     */
    @Test
    void stepAnnotationsAreSelectedAsStepSourceSays() throws IOException {
        try (var in = SqlStage.class.getResourceAsStream("10-step-annotations.sql")) {
            String stage = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(stage.contains("WHERE " + StepSource.ANNOTATIONS + ";"), StepSource.ANNOTATIONS);
        }
        assertTrue(QueryFile.load("batch-annotations").sql().contains("AND " + StepSource.ANNOTATIONS + "\n"),
                StepSource.ANNOTATIONS);
    }

    /** A stage's or query's parameters, from words {@code name=value} after the first. */
    private static Map<String, Object> parameters(List<String> words) {
        Map<String, Object> parameters = new LinkedHashMap<>();
        for (String p : words.subList(1, words.size())) {
            String value = p.substring(p.indexOf('=') + 1);
            parameters.put(p.substring(0, p.indexOf('=')), value.contains(",")
                    ? Stream.of(value.split(",")).map(StageDataTest::scalar).collect(Collectors.toList())
                    : scalar(value));
        }
        return parameters;
    }

    /** One value as written: NULL, an integer, a number with a decimal point, true or false, else a string. */
    private static Object scalar(String value) {
        return value.equals("NULL") ? null
                : value.matches("-?\\d+") ? (Object) Integer.valueOf(value)
                : value.matches("-?\\d+\\.\\d+") ? (Object) Double.valueOf(value)
                : value.matches("true|false") ? (Object) Boolean.valueOf(value) : value;
    }

    /** The rows of query file {@code queries/words[0].sql} with the parameters that follow. */
    private static List<List<String>> queryFile(Connection c, List<String> words) throws SQLException {
        List<List<String>> out = new ArrayList<>();
        QueryFile.load(words.get(0)).run(c, parameters(words), rs -> out.add(row(rs)));
        return out;
    }

    /**
     * Creates table {@code name} from the header and rows starting at {@code lines[i]} (or, when the store's
     * schema already has it, fills the header's columns); the line after them.
     */
    private static int table(Connection c, String name, List<String> lines, int i) throws SQLException {
        List<String> header = tokens(lines.get(i));
        List<String> types = new ArrayList<>();
        List<String> columns = new ArrayList<>();
        for (String h : header) {
            columns.add(h.substring(0, h.indexOf(':')) + " " + h.substring(h.indexOf(':') + 1));
            types.add(h.substring(h.indexOf(':') + 1));
        }
        try (Statement s = c.createStatement()) {
            boolean exists;
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM duckdb_tables() WHERE table_name = '" + name + "'")) {
                exists = rs.next() && rs.getLong(1) > 0;
            }
            if (!exists) {
                s.execute("CREATE TABLE " + name + " (" + String.join(", ", columns) + ")");
            }
            String into = exists ? name + " (" + header.stream().map(h -> h.substring(0, h.indexOf(':')))
                    .collect(Collectors.joining(", ")) + ")" : name;
            for (i++; i < lines.size() && !lines.get(i).isBlank(); i++) {
                List<String> values = tokens(lines.get(i));
                assertEquals(types.size(), values.size(), "values of row " + (i + 1) + " of " + name);
                List<String> literals = new ArrayList<>();
                for (int k = 0; k < values.size(); k++) {
                    literals.add(values.get(k).equals("NULL") ? "NULL"
                            : "CAST('" + values.get(k).replace("'", "''") + "' AS " + types.get(k) + ")");
                }
                s.execute("INSERT INTO " + into + " VALUES (" + String.join(", ", literals) + ")");
            }
        }
        return i;
    }

    private static List<List<String>> rows(Connection c, String sql) throws SQLException {
        List<List<String>> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(row(rs));
            }
        }
        return out;
    }

    private static List<String> row(ResultSet rs) throws SQLException {
        List<String> row = new ArrayList<>();
        for (int k = 1; k <= rs.getMetaData().getColumnCount(); k++) {
            String v = rs.getString(k);
            row.add(v == null ? "NULL" : v);
        }
        return row;
    }

    private static List<String> tokens(String line) {
        List<String> out = new ArrayList<>();
        Matcher m = TOKEN.matcher(line);
        while (m.find()) {
            out.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
        return out;
    }

    private static String render(List<List<String>> rows) {
        StringBuilder sb = new StringBuilder();
        for (List<String> row : rows) {
            sb.append(String.join(" ", row)).append('\n');
        }
        return sb.toString();
    }
}
