package dev.steptrace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.testing.JsonSchemas;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * diff.json, diff.html and diff.md from {@link DiffFixtures}: schema, escaping, self-containment,
 * charts, and Markdown tables that hold together. Leaves the files in {@code target/diff-writers/}.
 */
class DiffWritersTest {
    static final Path out = Path.of("target", "diff-writers");
    static List<Path> written;

    @BeforeAll
    static void write() throws IOException {
        written = DiffWriters.writeAll(DiffFixtures.kimi(), out, null, true, true, true);
    }

    @Test
    void writesEveryOutput() {
        List<String> names = written.stream().map(p -> p.getFileName().toString()).toList();
        assertEquals(List.of("diff.json", "diff.html", "diff.md", "chart-diff-decode-bars.png",
                "chart-diff-decode-deltas.png", "chart-diff-prefill-bars.png", "chart-diff-prefill-deltas.png"), names);
    }

    @Test
    void jsonMatchesTheSchema() throws Exception {
        JsonSchemas.assertValid("diff.schema.json", new ObjectMapper().readTree(out.resolve("diff.json").toFile()));
    }

    @Test
    void htmlEscapesNamesAndIsSelfContained() throws IOException {
        String html = Files.readString(out.resolve("diff.html"));
        assertTrue(html.contains("void k&lt;a, b&gt;(x&amp;)"), "kernel name escaped");
        assertFalse(html.contains("<a, b>"), "never a raw name");
        assertFalse(html.contains("custom-ar <&>"), "capture name escaped");
        assertTrue(html.contains("cut &lt;after&gt; 1 GB &amp; kept"), "capture warnings escaped");
        String lower = html.toLowerCase();
        assertFalse(lower.contains("<script"), "no scripts");
        assertFalse(lower.contains("http"), "no URLs");
        assertFalse(lower.contains("src="), "nothing loaded");
        assertFalse(html.contains("null"), "no null printed");
        // The headline table: all-reduce first (largest change), significant and faster.
        assertTrue(html.matches("(?s).*<tr data-category=\"allreduce\" class=\"cat sig faster\">.*"), "allreduce row marked");
        assertTrue(html.contains("data-verdict=\"faster\""));
        assertTrue(html.contains("[-2.410, -2.130]"), "interval printed");
        // Four charts (bars and deltas per phase), each inline SVG with unique ids.
        assertEquals(4, count(html, "<svg class=\"chart\""));
        Matcher ids = Pattern.compile("\\bid=\"([^\"]+)\"").matcher(html);
        Set<String> seen = new HashSet<>();
        while (ids.find()) {
            assertTrue(seen.add(ids.group(1)), "duplicate id " + ids.group(1));
        }
        Matcher refs = Pattern.compile("url\\(#([^)]+)\\)").matcher(html);
        while (refs.find()) {
            assertTrue(seen.contains(refs.group(1)), "dangling reference " + refs.group(1));
        }
        // Added, removed and calls changed are visible; prefill without interval says n/a.
        assertTrue(html.contains("badge added") && html.contains("badge removed") && html.contains("badge calls"));
        assertTrue(html.contains("n/a"));
    }

    @Test
    void markdownTablesHoldTogether() throws IOException {
        String md = Files.readString(out.resolve("diff.md"));
        assertTrue(md.startsWith("# steptrace diff: nccl-simple vs custom-ar \\<\\&\\>"), md.substring(0, 80));
        assertTrue(md.contains("`void k<a, b>(x&)`"), "names in code spans");
        assertTrue(md.contains("fused_moe\\|marlin"), "pipes escaped inside cells");
        for (List<String> table : MarkdownReportWriterTest.tables(md)) {
            int cells = MarkdownReportWriterTest.cells(table.get(0));
            for (String row : table) {
                assertEquals(cells, MarkdownReportWriterTest.cells(row), "cells in\n" + row);
            }
        }
        assertTrue(md.indexOf("| AllReduce") < md.indexOf("## Kernels"), "headline table first");
        for (String png : List.of("chart-diff-decode-bars.png", "chart-diff-decode-deltas.png")) {
            assertTrue(md.contains("](" + png + ")"), "links " + png);
            BufferedImage img = ImageIO.read(out.resolve(png).toFile());
            assertTrue(img != null && img.getWidth() > 500, png);
        }
    }

    @Test
    void templatesCanBeOverridden() throws IOException {
        Path dir = Path.of("target", "diff-templates");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("diff.md.ftl"), "verdict ${view.phases[0].verdict} ${view.aName}\n");
        Path o = Path.of("target", "diff-override");
        List<Path> w = DiffWriters.writeAll(DiffFixtures.kimi(), o, dir, false, false, true);
        assertEquals("verdict faster nccl-simple\n", Files.readString(w.get(0)));
    }

    static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
