package dev.steptrace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HtmlReportWriterTest {
    @TempDir
    static Path out;
    static String html;

    @BeforeAll
    static void write() throws IOException {
        Path file = new HtmlReportWriter().write(ReportFixtures.kimi(), out);
        assertEquals(out.resolve("report.html"), file);
        html = Files.readString(file);
    }

    @Test
    void everyKernelNameIsEscaped() {
        assertTrue(html.contains("void k&lt;a, b&gt;(x&amp;)"), "escaped name");
        assertFalse(html.contains("<a, b>"), "raw template arguments in the markup");
        assertFalse(html.contains("k<a"), "raw name in the markup");
        assertTrue(html.contains("fused_moe|marlin&lt;`int4`&gt;"));
        assertTrue(html.contains("ncclDevKernelArgsStorage&lt;4096ul&gt;"));
        assertFalse(html.contains("<4096ul>"));
        // warning text is escaped too
        assertTrue(html.contains("no launch &lt;in the trace&gt; &amp; were attributed"));
    }

    @Test
    void longNamesAreShortenedWithTheFullNameAtHand() {
        String full = ReportFixtures.LONG_NAME.replace("<", "&lt;").replace(">", "&gt;");
        assertTrue(html.contains("<details class=\"kname\">"));
        assertTrue(html.contains(">" + full + "</code>"), "full name in the details");
        assertTrue(html.contains("…</code></summary>"), "shortened name in the summary");
    }

    @Test
    void headlineTableComesFirstInTimeOrderWithTheSpecNumbers() {
        int headline = html.indexOf("id=\"headline-decode\"");
        assertTrue(headline > 0);
        for (String later : List.of("id=\"ranks-decode\"", "id=\"stats-decode\"", "class=\"collectives\"", "id=\"kernels-decode\"",
                "id=\"idle-decode\"", "class=\"warnings\"", "id=\"capture\"")) {
            assertTrue(html.indexOf(later) > headline, later + " after the headline");
        }
        assertTrue(headline < html.indexOf("id=\"headline-prefill\""), "decode first");

        String table = between(html, "id=\"headline-decode\"", "</table>");
        Matcher row = Pattern.compile("<tr data-category=\"(\\w+)\"><td>(.*?)</td><td class=\"num\">([^<]*)</td>"
                + "<td class=\"num\">([^<]*)</td><td class=\"num\">([^<]*)</td></tr>").matcher(table);
        List<String> rows = new ArrayList<>();
        while (row.find()) {
            rows.add(row.group(1) + " " + row.group(3) + " " + row.group(4) + " " + row.group(5));
            assertTrue(row.group(2).endsWith(ReportCategories.label(row.group(1), null)), row.group(2));
        }
        assertEquals(List.of(
                "allreduce 11.17 51.5% 127",
                "attention 3.32 15.3% 61",
                "gemm 2.90 13.4% 244",
                "moe_gemm 2.40 11.1% 122",
                "routing 0.99 4.5% 183",
                "other 0.92 4.2% 310"), rows);
        assertTrue(table.contains("AllReduce (NCCL + custom)"));
        assertTrue(between(table, "<tfoot>", "</tfoot>").contains(">21.70<"), "total row");
    }

    @Test
    void perRankTableMarksTheFastestAndSlowestRankByComputeTime() {
        String table = between(html, "id=\"ranks-decode\"", "</table>");
        // By kernel time rank 3 has the least and rank 5 the most; without their collective waits, rank 1
        // computes least (21.62 - 0.70 = 20.92 ms) and rank 6 most (21.66 - 0.05 = 21.61 ms).
        assertTrue(table.contains("<tr class=\"min\"><td class=\"rank\">1<span class=\"badge min\" title=\"least compute time\">min</span>"), table);
        assertTrue(table.contains("<tr class=\"max\"><td class=\"rank\">6<span class=\"badge max\" title=\"most compute time\">max</span>"));
        assertTrue(table.contains(">21.41<") && table.contains(">22.02<"), "kernel time still shown");
        assertTrue(table.contains(">20.92<") && table.contains(">21.61<"), "compute time shown");
        assertFalse(table.contains("<td class=\"rank\">3<span"), "least kernel time is not the badge");
        // rank 7 has no prefill steps: its row says so rather than showing zeros
        String prefill = between(html, "id=\"ranks-prefill\"", "</table>");
        assertTrue(prefill.contains("<tr><td class=\"rank\">7</td><td class=\"num\">n/a</td>"), prefill);
        assertFalse(prefill.contains("badge"), "all prefill ranks alike: none singled out");
    }

    @Test
    void theStragglerIsNamedInOneSentenceAtTheTopOfThePerRankSection() {
        String ranks = between(html, "<section id=\"ranks\">", "</section>");
        String sentence = between(ranks, "<p class=\"stragglers named\" id=\"stragglers-decode\">", "</p>");
        assertTrue(sentence.contains("Rank 6 arrives last at 80.0% of the collectives; the others wait 0.62 ms per step"
                + " for it (88.6% of all collective wait), most of it after MoE GEMMs (70.0%)."), sentence);
        assertTrue(ranks.indexOf("id=\"stragglers-decode\"") < ranks.indexOf("id=\"ranks-decode\""), "before the table");
        String arrivals = between(ranks, "id=\"arrivals-decode\"", "</table>");
        assertTrue(arrivals.contains("<tr class=\"straggler\"><td class=\"rank\">6<span class=\"badge straggler\">straggler</span>"));
        assertTrue(arrivals.contains("<td class=\"rank\">5</td><td class=\"num\">300</td><td class=\"num\">11.8%</td>"), arrivals);
        String spots = between(ranks, "id=\"spots-decode\"", "</table>");
        assertTrue(spots.contains("<td><code>allreduce</code></td><td class=\"num\">61</td><td class=\"num\">100.0%</td>"
                + "<td class=\"num\">0.05</td><td>MoE GEMMs</td>"), spots);
        assertFalse(ranks.contains("id=\"stragglers-prefill\""), "no straggler analysis in prefill: no sentence");
    }

    @Test
    void subcategoriesAreInsideCollapsedDetails() {
        String inside = between(html, "id=\"inside-decode\"", "</div>");
        assertEquals(6, count(inside, "<details class=\"subcats\""), "one per headline category");
        assertTrue(inside.contains("AllReduce (NCCL + custom) 51.5%: allreduce_main 51.5%</summary>"), inside);
        assertFalse(inside.contains("<details open"), "collapsed");
    }

    @Test
    void theHeaderSaysWhichPhasesReplayCudaGraphs() {
        String header = between(html, "<header>", "</header>");
        assertTrue(header.contains("replays CUDA graphs (decode)"), header);
        String capture = between(html, "id=\"capture\"", "</section>");
        assertTrue(capture.contains("<dt>CUDA graphs (decode)</dt><dd>replays CUDA graphs (1 replay per step)</dd>"), capture);
        assertTrue(capture.contains("<dt>CUDA graphs (prefill)</dt><dd>launches every kernel eagerly (no CUDA graphs)</dd>"));
    }

    @Test
    void overlapAndHostBoundFiguresAreShown() {
        String overlap = between(html, "id=\"overlap\"", "</table>");
        assertTrue(overlap.contains("<tr data-phase=\"decode\"><td>Decode</td><td class=\"num\">11.17</td><td class=\"num\">2.10</td>"
                + "<td class=\"num\">9.07</td><td class=\"num\">18.8%</td></tr>"), overlap);
        assertFalse(overlap.contains("data-phase=\"prefill\""), "no communication figures: no row");
        String idle = between(html, "id=\"idle-prefill\"", "</table>");
        assertTrue(idle.contains("<td class=\"num\">18.30 (22.8%)</td>"), idle);
        assertTrue(html.contains("<p class=\"note warning launch-bound\" id=\"launch-bound-prefill\">Prefill is launch-bound"));
        assertFalse(html.contains("id=\"launch-bound-decode\""));
        String delays = between(html, "id=\"delays-prefill\"", "</table>");
        assertTrue(delays.contains("Other GEMMs (cuBLAS, CUTLASS, nvjet)</td><td class=\"num\">244</td><td class=\"num\">4.1</td>"
                + "<td class=\"num\">7.9</td>"), delays);
        String decodeIdle = between(html, "id=\"idle-decode\"", "</table>");
        assertTrue(decodeIdle.contains("<td class=\"num\">412.0 / 398.5 / 520.3</td>"), "gap between graph replays");
    }

    @Test
    void stepCountsArePluralOnlyWhenNotOne() {
        assertTrue(html.contains("20 steps per rank"));
        assertTrue(html.contains(">2 steps per rank"));
        assertFalse(html.contains("1 steps"));
    }

    @Test
    void nullsRenderAsNotAvailable() {
        assertFalse(html.contains("null"), "a null leaked into the page");
        String stats = between(html, "id=\"stats-prefill\"", "</table>");
        assertTrue(stats.contains("<td>Busy (union of kernel intervals)</td><td class=\"num\">n/a</td><td class=\"num\">n/a</td>"), stats);
        assertTrue(stats.contains("<td>Host gap before the step</td><td class=\"num\">n/a</td>"));
        String collectives = between(html, "class=\"collectives\"", "</table>");
        assertTrue(collectives.contains("<code>all_gather</code></td><td class=\"num\">1</td><td class=\"num\">25.3</td>"
                + "<td class=\"num\">n/a</td><td class=\"num\">n/a</td><td class=\"num\">n/a</td>"), collectives);
        assertTrue(collectives.contains("14,336 B (14.0 KiB)"));
    }

    @Test
    void isOneSelfContainedFile() {
        String lower = html.toLowerCase(Locale.ROOT);
        assertFalse(lower.contains("<script"), "no scripts");
        assertFalse(lower.contains("http"), "no URLs (namespace URLs included)");
        assertFalse(lower.contains("<link"), "no external stylesheets");
        assertFalse(lower.contains(" src="), "no external resources");
        assertFalse(lower.contains("@import"));
        assertTrue(html.startsWith("<!DOCTYPE html>"));
    }

    @Test
    void chartsAreInlineSvgWithUniqueIds() {
        int svgs = count(html, "<svg class=\"chart\"");
        assertEquals(6, svgs, "shares, ranks and steps for decode and prefill");
        assertEquals(svgs, count(html, "</svg>"));
        Matcher ids = Pattern.compile("\\bid=\"([^\"]+)\"").matcher(html);
        Set<String> seen = new HashSet<>();
        while (ids.find()) {
            assertTrue(seen.add(ids.group(1)), "duplicate id " + ids.group(1));
        }
        Matcher refs = Pattern.compile("url\\(#([^)]+)\\)").matcher(html);
        while (refs.find()) {
            assertTrue(seen.contains(refs.group(1)), "dangling reference " + refs.group(1));
        }
        assertTrue(html.contains("<title id=\"decode-ranks-title\">Decode: step time per rank, by part (work, communication,"
                + " waiting, idle)</title>"));
        assertTrue(html.contains("<title id=\"decode-steps-title\">Decode: step time and kernel time per step, median and"
                + " range over ranks</title>"));
    }

    @Test
    void warningsAndCaptureFactsAreThere() {
        String warnings = between(html, "id=\"warnings\"", "</section>");
        assertTrue(warnings.contains("<code>partial_file</code>"));
        assertTrue(warnings.contains("rank7.pt.trace.json.gz"));
        String capture = between(html, "id=\"capture\"", "</section>");
        assertTrue(capture.contains("/data/traces/kimi-k2.5-int4-tp8/decode-bs1"));
        assertTrue(capture.contains("0–7 (8)"));
        assertTrue(capture.contains("NVIDIA RTX PRO 6000 Blackwell Server Edition"));
        assertTrue(capture.contains("vLLM step annotations"));
    }

    @Test
    void anEmptyReportRenders(@TempDir Path dir) throws IOException {
        String empty = Files.readString(new HtmlReportWriter().write(ReportFixtures.empty(), dir));
        assertTrue(empty.contains("No steps were found"));
        assertTrue(empty.contains("No collectives in this capture."));
        assertTrue(empty.contains("<code>no_steps</code>"));
        assertFalse(empty.contains("null"));
        assertEquals(0, count(empty, "<svg"));
    }

    static String between(String s, String start, String end) {
        int i = s.indexOf(start);
        assertTrue(i >= 0, "missing " + start);
        int j = s.indexOf(end, i);
        assertTrue(j >= 0, "missing " + end + " after " + start);
        return s.substring(i, j + end.length());
    }

    static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
