package dev.steptrace.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.report.CaptureDiff;
import dev.steptrace.report.ReportCategories;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import java.awt.image.BufferedImage;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import tech.tablesaw.api.ColumnType;
import tech.tablesaw.api.Table;

/**
 * The library API on the real H200 TP2 decode captures (NCCL Simple and LL): its tables are the
 * report's numbers, its SQL sees the store and the analysis tables, a capture against itself shows no
 * significant change, and its charts are real images.
 */
class SteptraceApiTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;

    private static Path simpleDir;
    private static Path llDir;
    private static Steptrace st;
    private static Capture ll;
    private static Capture simple;

    @BeforeAll
    static void openBoth() {
        Path dir = TestData.sampleTraces().resolve("h200-tp2-moe-decode");
        simpleDir = dir.resolve("graph-nccl-simple");
        llDir = dir.resolve("graph-nccl-ll");
        st = Steptrace.openTraces(dir, tmp.resolve("api.duckdb"));
        ll = st.capture("graph-nccl-ll");
        simple = st.capture(simpleDir.toString());
    }

    @AfterAll
    static void close() {
        if (st != null) {
            st.close();
        }
    }

    @Test
    void listsTheCaptures() {
        List<CaptureInfo> list = st.captureList();
        assertEquals(List.of("graph-nccl-ll", "graph-nccl-simple"), list.stream().map(CaptureInfo::name).toList());
        for (CaptureInfo c : list) {
            assertEquals(2, c.files());
            assertEquals(List.of(0, 1), c.ranks());
            assertEquals(0, c.partialFiles());
            assertTrue(c.kernels() > 0);
        }
        Table t = st.captures();
        assertEquals(2, t.rowCount());
        assertEquals(List.of("capture_id", "name", "path", "files", "ranks", "partial_files", "kernels"), t.columnNames());
        assertEquals("0,1", t.stringColumn("ranks").get(0));
        assertEquals(llDir.toAbsolutePath().normalize().toString(), ll.path().toString());
        assertEquals("profiler_step", ll.stepSource());
        assertEquals(List.of("decode"), ll.phases());
        // Two captures were loaded: capture() must not pick one.
        SteptraceException e = assertThrows(SteptraceException.class, () -> st.capture());
        assertTrue(e.getMessage().contains("2 captures to choose from"), e.getMessage());
    }

    @Test
    void tenDecodeStepsPerRank() {
        Table steps = ll.steps("decode");
        assertEquals(20, steps.rowCount());
        for (int rank : List.of(0, 1)) {
            Table r = steps.where(steps.intColumn("rank").isEqualTo(rank));
            assertEquals(10, r.rowCount(), "rank " + rank);
            assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), r.intColumn("phase_index").asList());
        }
        assertEquals(List.of("rank", "step", "phase", "phase_index", "name", "kernel_ms", "span_ms", "busy_ms",
                "idle_ms", "host_gap_ms", "calls"), steps.columnNames());
        assertTrue(steps.stringColumn("name").get(0).startsWith("ProfilerStep#"), steps.stringColumn("name").get(0));
        // Per-step categories add up to the step's kernel time.
        Table cats = ll.stepCategories("decode");
        for (int i = 0; i < steps.rowCount(); i++) {
            int rank = steps.intColumn("rank").get(i);
            int step = steps.intColumn("step").get(i);
            double sum = cats.where(cats.intColumn("rank").isEqualTo(rank).and(cats.intColumn("step").isEqualTo(step)))
                    .doubleColumn("ms").sum();
            assertEquals(steps.doubleColumn("kernel_ms").get(i), sum, 1e-9, "rank " + rank + " step " + step);
        }
    }

    @Test
    void breakdownIsTheReportsCategories() throws Exception {
        Path out = tmp.resolve("cli-report");
        Cli.assertExit(0, Cli.run("report", llDir.toString(), "--db", tmp.resolve("cli.duckdb").toString(),
                "--out", out.toString(), "--format", "json", "--quiet"));
        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        JsonNode expected = report.at("/phases/decode/categories");
        Table breakdown = ll.breakdown("decode");
        assertEquals(expected.size(), breakdown.rowCount());
        for (int i = 0; i < expected.size(); i++) {
            JsonNode c = expected.get(i);
            assertEquals(c.get("id").asText(), breakdown.stringColumn("category").get(i));
            assertEquals(c.get("label").asText(), breakdown.stringColumn("label").get(i));
            assertEquals(c.get("ms_per_step").asDouble(), breakdown.doubleColumn("ms_per_step").get(i), 1e-9);
            assertEquals(c.get("share_pct").asDouble(), breakdown.doubleColumn("share_pct").get(i), 1e-9);
            assertEquals(c.get("calls_per_step").asDouble(), breakdown.doubleColumn("calls_per_step").get(i), 1e-9);
        }
        // The top kernels are the first rows of kernels().
        JsonNode top = report.at("/phases/decode/top_kernels");
        Table kernels = ll.kernels("decode");
        assertTrue(kernels.rowCount() > top.size());
        for (int i = 0; i < top.size(); i++) {
            assertEquals(top.get(i).get("ms_per_step").asDouble(), kernels.doubleColumn("ms_per_step").get(i), 1e-9);
        }
        // Per rank, the categories add up to each rank's kernel time per step.
        Table ranks = ll.rankBreakdown("decode");
        for (JsonNode r : report.get("ranks")) {
            int rank = r.get("rank").asInt();
            double sum = ranks.where(ranks.intColumn("rank").isEqualTo(rank)).doubleColumn("ms_per_step").sum();
            assertEquals(r.at("/phases/decode/kernel_ms_per_step/mean").asDouble(), sum, 1e-6, "rank " + rank);
        }
        Table summary = ll.summary();
        assertEquals(report.at("/phases/decode/kernel_ms_per_step/mean").asDouble(),
                summary.doubleColumn("kernel_ms_mean").get(0), 1e-9);
        assertEquals(10.0, summary.doubleColumn("steps").get(0));
    }

    @Test
    void sqlOnTheStoreCountsWhatTheTracesHold() throws Exception {
        long expected = 0;
        for (Path f : TestData.kinetoTraces(llDir)) {
            expected += countKernelEvents(f);
        }
        for (Path f : TestData.kinetoTraces(simpleDir)) {
            expected += countKernelEvents(f);
        }
        Table t = st.sql("SELECT count(*) AS n FROM kernels");
        assertEquals(ColumnType.LONG, t.column("n").type());
        assertEquals(expected, t.longColumn("n").get(0));
        // sum() of a BIGINT is a HUGEINT in DuckDB: read as a long; ENUMs as text; UBIGINT ids above 2^63 exactly.
        Table types = st.sql("SELECT sum(dur_ns) AS total, any_value(kind) AS kind,"
                + " 18446744073709551615::UBIGINT AS big, 1.5::DECIMAL(10,2) AS d, [1, 2] AS l FROM gpu_events");
        assertEquals(ColumnType.LONG, types.column("total").type());
        assertEquals(ColumnType.STRING, types.column("kind").type());
        assertEquals("18446744073709551615", types.stringColumn("big").get(0));
        assertEquals(1.5, types.doubleColumn("d").get(0));
        assertEquals("[1, 2]", types.stringColumn("l").get(0));
        SteptraceException bad = assertThrows(SteptraceException.class, () -> st.sql("SELECT nope FROM kernels"));
        assertTrue(bad.getMessage().startsWith("query failed: Binder Error: Referenced column \"nope\" not found"),
                bad.getMessage());
        assertTrue(bad.userError());
    }

    @Test
    void sqlOnACaptureSeesItsAnalysisInTheStoreTables() {
        Table n = ll.sql("SELECT count(*) AS steps FROM steps WHERE " + ll.where());
        assertEquals(20L, n.longColumn("steps").get(0));
        // Analysis tables join each other: kernel names of the all-reduce category.
        Table names = ll.sql("""
                SELECT DISTINCT k.name FROM step_kernels k JOIN kernel_classes c USING (capture_id, analysis_key, name, kind, variant)
                WHERE c.category = 'allreduce' AND k.capture_id = %d AND k.analysis_key = '%s'"""
                .formatted(ll.id(), ll.analysisKey()));
        assertTrue(names.rowCount() > 0);
        assertTrue(names.stringColumn("name").asList().stream().allMatch(s -> s.startsWith("ncclDevKernel_AllReduce")),
                names.print());
        for (String table : List.of("analyses", "steps", "step_metrics", "step_categories", "step_kernels",
                "kernel_classes", "collective_instances")) {
            assertTrue(ll.sql("SELECT count(*) AS n FROM " + table + " WHERE " + ll.where()).longColumn("n").get(0) > 0,
                    table);
        }
    }

    @Test
    void collectivesSplitWaitAndTransferPerRank() {
        Table c = ll.collectives();
        Table ar = c.where(c.stringColumn("type").isEqualTo("allreduce").and(c.stringColumn("phase").isEqualTo("decode")));
        assertTrue(ar.rowCount() > 0);
        // Transfer is the fastest rank's duration of the instance; wait is the rest.
        Map<String, Double> fastest = new HashMap<>();
        for (int i = 0; i < ar.rowCount(); i++) {
            String key = ar.intColumn("phase_index").get(i) + "/" + ar.intColumn("k").get(i);
            fastest.merge(key, ar.doubleColumn("dur_us").get(i), Math::min);
        }
        double waitSum = 0;
        for (int i = 0; i < ar.rowCount(); i++) {
            String key = ar.intColumn("phase_index").get(i) + "/" + ar.intColumn("k").get(i);
            assertEquals(fastest.get(key), ar.doubleColumn("transfer_us").get(i), 1e-9);
            assertEquals(ar.doubleColumn("dur_us").get(i) - fastest.get(key), ar.doubleColumn("wait_us").get(i), 1e-6);
            waitSum += ar.doubleColumn("wait_us").get(i);
        }
        Table summary = ll.collectiveSummary();
        Table arSummary = summary.where(summary.stringColumn("type").isEqualTo("allreduce"));
        // wait per step: the mean over ranks of each rank's wait over its 10 steps.
        assertEquals(waitSum / 1e3 / 2 / 10, arSummary.doubleColumn("wait_ms_per_step").get(0), 1e-6);
        assertEquals(ll.report().collectives().get(0).callsPerStep(), arSummary.doubleColumn("calls_per_step").get(0));
    }

    @Test
    void aCaptureAgainstItselfHasNoSignificantChange() {
        Diff self = Steptrace.diff(ll, ll);
        assertEquals(List.of("decode"), self.phases());
        assertEquals(List.of(), self.significantCategories("decode"));
        assertEquals(CaptureDiff.Verdict.NO_SIGNIFICANT_CHANGE, self.verdict("decode"));
        Table cats = self.categories("decode");
        assertTrue(cats.rowCount() > 0);
        assertTrue(cats.doubleColumn("delta_ms").asList().stream().allMatch(d -> d == 0.0));
        Table sides = self.breakdown("decode");
        assertEquals("A", sides.stringColumn("capture").get(0));
        assertEquals("B", sides.stringColumn("capture").get(sides.rowCount() - 1));
    }

    @Test
    void simpleVersusLlIsTheCommandLinesDiff() throws Exception {
        Diff d = Steptrace.diff(simple, ll);
        assertEquals(CaptureDiff.Verdict.FASTER, d.verdict("decode"));
        assertTrue(d.significantCategories("decode").contains("allreduce"), d.significantCategories("decode").toString());
        Path out = tmp.resolve("cli-diff");
        Cli.assertExit(0, Cli.run("diff", simpleDir.toString(), llDir.toString(), "--db", tmp.resolve("cli-diff.duckdb").toString(),
                "--out", out.toString(), "--format", "json", "--quiet"));
        JsonNode cli = JSON.readTree(out.resolve("diff.json").toFile());
        Table cats = d.categories("decode");
        JsonNode expected = cli.at("/phases/decode/categories");
        assertEquals(expected.size(), cats.rowCount());
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i).get("id").asText(), cats.stringColumn("category").get(i));
            assertEquals(expected.get(i).get("delta_ms").asDouble(), cats.doubleColumn("delta_ms").get(i), 1e-12);
            assertEquals(expected.get(i).at("/ci95_ms/0").asDouble(), cats.doubleColumn("ci95_lo_ms").get(i), 1e-12);
            assertEquals(expected.get(i).get("significant").asBoolean(), cats.booleanColumn("significant").get(i));
        }
        Table kernels = d.kernels("decode");
        assertTrue(kernels.stringColumn("name").get(0).startsWith("ncclDevKernel_AllReduce"));
        Table both = d.steps("decode");
        assertEquals(40, both.rowCount());
        assertEquals("graph-nccl-simple", both.stringColumn("capture").get(0));
        assertEquals("graph-nccl-ll", both.stringColumn("capture").get(39));
        assertEquals(2, d.collectives("decode").rowCount());
        // The written diff.json is the command's (to the last bits of floating-point sums).
        List<Path> written = d.write(tmp.resolve("api-diff"), null, true, false, false);
        JsonNode fromCli = JSON.readTree(out.resolve("diff.json").toFile());
        JsonNode fromApi = JSON.readTree(written.get(0).toFile());
        List<String> diffs = new java.util.ArrayList<>();
        jsonDiff("", fromCli, fromApi, diffs);
        assertEquals(List.of(), diffs);
    }

    @Test
    void chartsAreImagesInTheReportsColors() throws Exception {
        CategoryChart stacked = Charts.stackedBars(ll.rankBreakdown("decode"), "rank", "ms_per_step", "category");
        Path png = Charts.save(stacked, tmp.resolve("charts/ranks.png"));
        byte[] bytes = Files.readAllBytes(png);
        assertEquals(0x89, bytes[0] & 0xff);
        assertEquals("PNG", new String(bytes, 1, 3, java.nio.charset.StandardCharsets.US_ASCII));
        BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image, "ImageIO reads it");
        assertEquals(900, image.getWidth());
        assertEquals(440, image.getHeight());
        // Category series: the report's labels and colors, in the report's order.
        Map<String, CategorySeries> series = stacked.getSeriesMap();
        CategorySeries allreduce = series.get(ReportCategories.chartLabel(ReportCategories.label("allreduce", null)));
        assertNotNull(allreduce, series.keySet().toString());
        assertEquals(ReportCategories.awtColor("allreduce"), allreduce.getFillColor());
        assertEquals(allreduce, series.values().iterator().next(), "category order: all-reduce at the bottom");

        Path svg = Charts.save(Charts.bars(ll.breakdown("decode"), "category", "ms_per_step"), tmp.resolve("bars.svg"));
        String text = Files.readString(svg);
        assertTrue(text.contains("<svg"), text.substring(0, Math.min(200, text.length())));

        XYChart lines = Charts.lines(ll.steps("decode"), "phase_index", "kernel_ms", "rank");
        assertEquals(List.of("rank 0", "rank 1"), List.copyOf(lines.getSeriesMap().keySet()));
        assertEquals(10, lines.getSeriesMap().get("rank 0").getXData().length);
        assertEquals(900, Charts.image(lines).getWidth());

        CategoryChart grouped = Charts.bars(ll.steps("decode"), "phase_index", "kernel_ms", "rank");
        assertEquals(10, grouped.getSeriesMap().get("rank 1").getXData().size());

        SteptraceException noColumn = assertThrows(SteptraceException.class,
                () -> Charts.bars(ll.breakdown("decode"), "category", "nope"));
        assertTrue(noColumn.getMessage().contains("columns: category, label, ms_per_step"), noColumn.getMessage());
        assertThrows(SteptraceException.class, () -> Charts.save(stacked, tmp.resolve("x.gif")));
        assertThrows(SteptraceException.class, () -> Charts.lines(ll.breakdown("decode"), "category", "ms_per_step"));
    }

    @Test
    void clearMessagesForWhatTheCallerGotWrong() {
        SteptraceException phase = assertThrows(SteptraceException.class, () -> ll.breakdown("prefill"));
        assertEquals("graph-nccl-ll has no prefill steps (it has: decode)", phase.getMessage());
        assertThrows(SteptraceException.class, () -> ll.steps("warmup"));
        SteptraceException none = assertThrows(SteptraceException.class, () -> st.capture("no-such-capture"));
        assertTrue(none.getMessage().contains("neither a trace directory nor a capture in the store"), none.getMessage());
        SteptraceException noStore = assertThrows(SteptraceException.class, () -> Steptrace.open(tmp.resolve("absent.duckdb")));
        assertTrue(noStore.getMessage().startsWith("no store at "), noStore.getMessage());
        SteptraceException noTraces = assertThrows(SteptraceException.class,
                () -> Steptrace.openTraces(tmp.resolve("no-such-dir"), tmp.resolve("other.duckdb")));
        assertTrue(noTraces.getMessage().startsWith("no such file or directory"), noTraces.getMessage());
    }

    @Test
    void closingTheStoreClosesItsCaptures() {
        Path db = tmp.resolve("ll-only.duckdb");
        Steptrace.openTraces(llDir, db).close();
        try (Steptrace other = Steptrace.open(db)) {
            Capture c = other.capture();
            assertEquals("graph-nccl-ll", c.name());
            other.close();
            SteptraceException closed = assertThrows(SteptraceException.class, () -> c.sql("SELECT 1"));
            assertEquals("the capture graph-nccl-ll is closed", closed.getMessage());
        }
    }

    /** Where two JSON documents differ: paths, with numbers compared to 1e-9 (relative above 1). */
    static void jsonDiff(String path, JsonNode a, JsonNode b, List<String> out) {
        if (a.isObject() && b.isObject()) {
            java.util.Set<String> names = new java.util.TreeSet<>();
            a.fieldNames().forEachRemaining(names::add);
            b.fieldNames().forEachRemaining(names::add);
            for (String n : names) {
                jsonDiff(path + "/" + n, a.path(n), b.path(n), out);
            }
        } else if (a.isArray() && b.isArray() && a.size() == b.size()) {
            for (int i = 0; i < a.size(); i++) {
                jsonDiff(path + "/" + i, a.get(i), b.get(i), out);
            }
        } else if (a.isNumber() && b.isNumber()) {
            // The two stores number their files differently, so sums of doubles may run in another order.
            if (Math.abs(a.asDouble() - b.asDouble()) > 1e-9 * Math.max(1, Math.abs(a.asDouble()))) {
                out.add(path + ": " + a + " vs " + b);
            }
        } else if (!a.equals(b)) {
            out.add(path + ": " + (a.isContainerNode() ? a.size() : a) + " vs " + (b.isContainerNode() ? b.size() : b));
        }
    }

    /** Kernel events of a trace (category {@code kernel}, complete events), by a streaming pass of Jackson alone. */
    private static long countKernelEvents(Path trace) throws Exception {
        long n = 0;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace));
             JsonParser p = new JsonFactory().createParser(in)) {
            while (p.nextToken() != null) {
                if (p.currentToken() == JsonToken.FIELD_NAME && "traceEvents".equals(p.currentName())) {
                    p.nextToken();
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        JsonNode e = JSON.readTree(p);
                        if ("kernel".equals(e.path("cat").asText()) && "X".equals(e.path("ph").asText())) {
                            n++;
                        }
                    }
                }
            }
        }
        return n;
    }
}
