package dev.steptrace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.steptrace.testing.HeadlessChromium;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/**
 * Opens report.html in headless Chromium: no console errors, no requests leaving the file, the
 * step time's parts in the first screen with the finding, the kernel-time table below with its rows in order, kernel names rendered as text (no element made from
 * {@code <a, b>}), every chart drawn. Leaves {@code target/report-screenshot.png} (and the HTML in
 * {@code target/browser-report/}) for people to look at. Skips when Chromium is absent (see
 * {@link HeadlessChromium#startOrSkip()}).
 */
class ReportBrowserTest {
    private static final String CHECK = """
            (() => {
              const parts = document.querySelector('table.step-parts');
              const t = document.querySelector('table.headline');
              if (!t || !parts) return {found: false};
              const partsBox = parts.getBoundingClientRect();
              const box = t.getBoundingClientRect();
              const style = getComputedStyle(t);
              const names = [...document.querySelectorAll('code.kname')].map(e => e.textContent);
              const tags = [...document.querySelectorAll('*')].map(e => e.tagName.toLowerCase());
              return {
                found: true,
                height: box.height, width: box.width, top: box.top + window.scrollY,
                partsTop: partsBox.top + window.scrollY, partsHeight: partsBox.height,
                parts: [...parts.querySelectorAll('tbody tr')].map(r => r.getAttribute('data-part')),
                finding: document.querySelector('p.finding') ? document.querySelector('p.finding').innerText : '',
                display: style.display, visibility: style.visibility,
                rows: [...t.querySelectorAll('tbody tr')].map(r => r.getAttribute('data-category')),
                firstRow: t.querySelector('tbody tr') ? t.querySelector('tbody tr').innerText : '',
                names: names,
                oddTags: tags.filter(n => !/^[a-z][a-z0-9]*$/.test(n)),
                anchors: [...document.querySelectorAll('a')].map(a => a.getAttribute('href')),
                charts: [...document.querySelectorAll('svg.chart')].map(s => s.getBoundingClientRect().height),
                title: document.title
              };
            })()""";

    @Test
    void reportOpensCleanlyInABrowser() throws IOException {
        Path dir = Path.of("target", "browser-report");
        Path html = new HtmlReportWriter().write(ReportFixtures.kimi(), dir);
        Path screenshot = Path.of("target", "report-screenshot.png");
        try (HeadlessChromium browser = HeadlessChromium.startOrSkip();
             HeadlessChromium.Page page = browser.open(html)) {
            JsonNode v = page.evaluate(CHECK);
            page.screenshot(screenshot);
            assertEquals(List.of(), page.problems(), "console errors, exceptions or network requests");

            assertTrue(v.path("found").asBoolean(), "step-time and kernel-time tables present");
            // The first screen: the step time's parts, largest first, and the finding above them.
            assertTrue(v.path("partsTop").asDouble() < 900 && v.path("partsHeight").asDouble() > 0,
                    "step-time parts are in the first screen: " + v.path("partsTop"));
            assertEquals(List.of("comm_allreduce", "attention", "comm_wait", "gemm", "moe_gemm", "idle_before",
                    "idle_after", "routing", "other", "idle_other", "idle_launch"), HeadlessChromium.strings(v.path("parts")));
            assertTrue(v.path("finding").asText().startsWith("Exposed all-reduce transfer takes 32.3% of the step"),
                    v.path("finding").asText());
            assertTrue(v.path("height").asDouble() > 0 && v.path("width").asDouble() > 0, "headline table has a size: " + v);
            assertFalse("none".equals(v.path("display").asText()), "displayed");
            assertFalse("hidden".equals(v.path("visibility").asText()), "visible");
            assertTrue(v.path("top").asDouble() > v.path("partsTop").asDouble(), "kernel time below the step time");
            assertEquals(List.of("allreduce", "attention", "gemm", "moe_gemm", "routing", "other"), HeadlessChromium.strings(v.path("rows")));
            assertTrue(v.path("firstRow").asText().matches("AllReduce \\(NCCL \\+ custom\\)\\s+11\\.17\\s+51\\.5%\\s+127"), v.path("firstRow").asText());

            List<String> names = HeadlessChromium.strings(v.path("names"));
            assertTrue(names.contains(ReportFixtures.ESCAPE_NAME), "kernel name rendered as text: " + names);
            assertTrue(names.contains(ReportFixtures.PIPE_NAME), names.toString());
            assertTrue(names.contains(ReportFixtures.LONG_NAME), "full long name in its details");
            assertEquals(List.of(), HeadlessChromium.strings(v.path("oddTags")), "elements made from kernel names");
            HeadlessChromium.assertOnlyInPageLinks(v.path("anchors"));

            HeadlessChromium.assertChartsDrawn(v.path("charts"), 6);
            assertEquals("steptrace report: decode-bs1", v.path("title").asText());
        }
        BufferedImage shot = ImageIO.read(screenshot.toFile());
        assertTrue(shot != null && shot.getWidth() >= 1000 && shot.getHeight() > 900, "screenshot of the whole page");
    }
}
