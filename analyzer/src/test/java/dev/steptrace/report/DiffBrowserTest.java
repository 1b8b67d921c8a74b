package dev.steptrace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.steptrace.testing.HeadlessChromium;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Opens diff.html in headless Chromium, as {@link ReportBrowserTest} does the report: no console
 * errors or requests, the headline table visible in the first screen with its rows in order, kernel
 * names rendered as text, every chart drawn. Leaves {@code target/diff-screenshot.png}.
 */
class DiffBrowserTest {
    private static final String CHECK = """
            (() => {
              const t = document.querySelector('table.headline');
              if (!t) return {found: false};
              const box = t.getBoundingClientRect();
              const style = getComputedStyle(t);
              const tags = [...document.querySelectorAll('*')].map(e => e.tagName.toLowerCase());
              return {
                found: true,
                height: box.height, width: box.width, top: box.top + window.scrollY,
                display: style.display, visibility: style.visibility,
                rows: [...t.querySelectorAll('tbody tr[data-category]')].map(r => r.getAttribute('data-category')),
                firstRow: t.querySelector('tbody tr').innerText,
                verdict: document.querySelector('.verdict').textContent,
                names: [...document.querySelectorAll('code.kname')].map(e => e.textContent),
                oddTags: tags.filter(n => !/^[a-z][a-z0-9]*$/.test(n)),
                anchors: [...document.querySelectorAll('a')].map(a => a.getAttribute('href')),
                charts: [...document.querySelectorAll('svg.chart')].map(s => s.getBoundingClientRect().height),
                title: document.title
              };
            })()""";

    @Test
    void diffOpensCleanlyInABrowser() throws IOException {
        Path dir = Path.of("target", "browser-diff");
        Path html = DiffWriters.html(DiffFixtures.kimi(), dir, TemplateLoader.builtIn(), true);
        try (HeadlessChromium browser = HeadlessChromium.startOrSkip();
             HeadlessChromium.Page page = browser.open(html)) {
            JsonNode v = page.evaluate(CHECK);
            page.screenshot(Path.of("target", "diff-screenshot.png"));
            assertEquals(List.of(), page.problems(), "console errors, exceptions or network requests");
            assertTrue(v.path("found").asBoolean(), "headline table present");
            assertTrue(v.path("height").asDouble() > 0 && v.path("width").asDouble() > 0, v.toString());
            assertFalse("none".equals(v.path("display").asText()));
            assertFalse("hidden".equals(v.path("visibility").asText()));
            assertTrue(v.path("top").asDouble() < 900, "headline table in the first screen: " + v.path("top"));
            assertEquals(List.of("allreduce", "attention", "moe_gemm", "gemm", "routing", "other"), HeadlessChromium.strings(v.path("rows")));
            assertTrue(v.path("firstRow").asText().matches(
                    "AllReduce \\(NCCL \\+ custom\\)\\s+11\\.170\\s+8\\.900\\s+-2\\.270\\s+-20\\.3%\\s+\\[-2\\.410, -2\\.130\\].*faster"),
                    v.path("firstRow").asText());
            assertEquals("faster", v.path("verdict").asText());
            List<String> names = HeadlessChromium.strings(v.path("names"));
            assertTrue(names.contains(ReportFixtures.ESCAPE_NAME), "kernel name rendered as text: " + names);
            assertTrue(names.contains(ReportFixtures.PIPE_NAME), names.toString());
            assertTrue(names.contains(ReportFixtures.LONG_NAME), "full long name in its details");
            assertEquals(List.of(), HeadlessChromium.strings(v.path("oddTags")), "elements made from kernel names");
            HeadlessChromium.assertOnlyInPageLinks(v.path("anchors"));
            HeadlessChromium.assertChartsDrawn(v.path("charts"), 4);
            assertEquals("steptrace diff: nccl-simple vs custom-ar <&>", v.path("title").asText());
        }
    }
}
