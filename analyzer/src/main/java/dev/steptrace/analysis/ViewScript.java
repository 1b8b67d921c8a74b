package dev.steptrace.analysis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A file of named views ({@code -- view: NAME} then one SELECT ending in {@code ;}), each run as {@code
 * CREATE OR REPLACE TEMPORARY VIEW NAME AS ...}: a form both Spark SQL and DuckDB execute as it is
 * ({@code cross-rank.sql} beside this class; the Spark module's fleet queries).
 */
public record ViewScript(List<View> views) {

    private static final Pattern HEADER = Pattern.compile("(?m)^-- view: (\\w+)\\s*$");
    /** The cross-rank stage: what compares a capture's ranks, run by the CLI (stages 42-43) and by Spark. */
    public static final ViewScript CROSS_RANK = resource(ViewScript.class, "cross-rank.sql");

    public record View(String name, String select) {
        public String createStatement() {
            return "CREATE OR REPLACE TEMPORARY VIEW " + name + " AS " + select;
        }
    }

    /** The views of a resource file beside {@code owner}. */
    public static ViewScript resource(Class<?> owner, String name) {
        try (InputStream in = owner.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read resource " + name, e);
        }
    }

    /** Creates every view, in order, on a DuckDB connection. */
    public void create(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (View v : views) {
                s.execute(v.createStatement());
            }
        }
    }

    static ViewScript parse(String text) {
        Matcher m = HEADER.matcher(text);
        List<int[]> starts = new ArrayList<>();
        List<String> names = new ArrayList<>();
        while (m.find()) {
            starts.add(new int[] {m.start(), m.end()});
            names.add(m.group(1));
        }
        List<View> views = new ArrayList<>();
        for (int i = 0; i < starts.size(); i++) {
            String body = text.substring(starts.get(i)[1], i + 1 < starts.size() ? starts.get(i + 1)[0] : text.length());
            // The block's comment lines say what the view is; the statement is the rest, without its ';'.
            String select = body.lines().filter(l -> !l.startsWith("--")).reduce("", (a, b) -> a + b + "\n").strip();
            if (select.endsWith(";")) {
                select = select.substring(0, select.length() - 1);
            }
            views.add(new View(names.get(i), select));
        }
        return new ViewScript(List.copyOf(views));
    }
}
