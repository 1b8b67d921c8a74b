package dev.steptrace.spark;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A file of named views ({@code -- view: NAME} then one SELECT ending in {@code ;}), each run as {@code
 * CREATE OR REPLACE TEMPORARY VIEW NAME AS ...}: a form both Spark SQL and DuckDB execute as it is.
 */
record ViewScript(List<View> views) {
    private static final Pattern HEADER = Pattern.compile("(?m)^-- view: (\\w+)\\s*$");

    record View(String name, String select) {
        String createStatement() {
            return "CREATE OR REPLACE TEMPORARY VIEW " + name + " AS " + select;
        }
    }

    static ViewScript resource(String name) {
        try (InputStream in = ViewScript.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read resource " + name, e);
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
