package dev.steptrace.decide;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.steptrace.report.TemplateLoader;
import dev.steptrace.testing.HeadlessChromium;
import dev.steptrace.testing.TestData;
import dev.steptrace.rules.Thresholds;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Opens decision.html in headless Chromium: no console errors and no requests leaving the file, the
 * options table visible in the first screen with its rows in the scenario's order, the decision
 * shown, scenario text rendered as text (an option titled with markup makes no element), both charts
 * drawn. Leaves {@code target/decision-screenshot.png} and the page in {@code target/browser-decision/}.
 * Skips when Chromium is absent (see {@link HeadlessChromium#startOrSkip()}).
 */
class DecisionBrowserTest {
    static final String NASTY = "<script>alert('x')</script> & <b>bold</b> | `tick`";

    private static final String CHECK = """
            (() => {
              const t = document.querySelector('table.options');
              if (!t) return {found: false};
              const box = t.getBoundingClientRect();
              const style = getComputedStyle(t);
              const tags = [...document.querySelectorAll('*')].map(e => e.tagName.toLowerCase());
              return {
                found: true,
                height: box.height, width: box.width, top: box.top + window.scrollY,
                display: style.display, visibility: style.visibility,
                rows: [...t.querySelectorAll('tbody tr')].map(r => r.getAttribute('data-option')),
                decision: document.querySelector('.verdict .decision').textContent,
                decisionAttr: document.querySelector('.verdict').getAttribute('data-decision'),
                scripts: document.querySelectorAll('script').length,
                bold: document.querySelectorAll('b').length,
                nasty: [...t.querySelectorAll('tbody tr td:first-child')].map(td => td.textContent),
                oddTags: tags.filter(n => !/^[a-z][a-z0-9]*$/.test(n)),
                anchors: [...document.querySelectorAll('a')].map(a => a.getAttribute('href')),
                charts: [...document.querySelectorAll('svg.chart')].map(s => s.getBoundingClientRect().height),
                revisit: [...document.querySelectorAll('ul.revisit li')].map(li => li.textContent),
                title: document.title
              };
            })()""";

    static Scenario scenarioWithNastyText() throws IOException {
        String yaml;
        try (InputStream in = ScenarioLoader.class.getResourceAsStream(ScenarioLoader.RESOURCE_PATH + "pcie-allreduce-tax.yaml")) {
            yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        yaml += "\n  - id: nasty\n    title: \"" + NASTY.replace("\"", "\\\"") + "\"\n    effect: {scale: 0.9}\n"
                + "    evidence: \"" + NASTY.replace("\"", "\\\"") + "\"\n";
        return ScenarioParser.parse(yaml, "nasty.yaml", false);
    }

    static Decision decision(Scenario s) throws IOException {
        List<Path> files;
        try (Stream<Path> st = Files.list(TestData.repoRoot().resolve("analyzer/src/test/resources/decide/bench"))) {
            files = st.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
        return DecisionEngine.decide(DecisionFixtures.spec(null), DecisionFixtures.batch(1), s,
                BenchResults.summarize(files, BenchResults.load(files), Thresholds.defaults()), Thresholds.defaults(), "test");
    }

    @Test
    void memoOpensCleanlyInABrowser() throws Exception {
        Path dir = Path.of("target", "browser-decision");
        Scenario s = scenarioWithNastyText();
        DecisionWriters.write(decision(s), s, dir, TemplateLoader.builtIn(), true, true, true, true);
        Path html = dir.resolve("decision.html");
        String text = Files.readString(html);
        assertFalse(text.contains("<script"), "no script element, not even from scenario text");
        assertFalse(text.contains("http://") || text.contains("https://") || text.contains("src="), "self-contained");
        DecideCommandTest.assertMarkdownTablesAreWellFormed(Files.readString(dir.resolve("decision.md")));

        Path screenshot = Path.of("target", "decision-screenshot.png");
        try (HeadlessChromium browser = HeadlessChromium.startOrSkip();
             HeadlessChromium.Page page = browser.open(html)) {
            JsonNode v = page.evaluate(CHECK);
            page.screenshot(screenshot);
            assertEquals(List.of(), page.problems(), "console errors, exceptions or network requests");
            assertTrue(v.path("found").asBoolean(), "options table present");
            assertTrue(v.path("height").asDouble() > 0 && v.path("width").asDouble() > 0, "options table has a size: " + v);
            assertFalse("none".equals(v.path("display").asText()));
            assertFalse("hidden".equals(v.path("visibility").asText()));
            assertTrue(v.path("top").asDouble() < 900, "options table in the first screen: " + v.path("top"));
            assertEquals(List.of("", "expert_parallel", "fp8_collectives", "nvlink", "speculative_decoding", "nasty"),
                    HeadlessChromium.strings(v.path("rows")));
            assertEquals("ACCEPT", v.path("decision").asText());
            assertEquals("accept", v.path("decisionAttr").asText());
            assertEquals(0, v.path("scripts").asInt());
            assertTrue(HeadlessChromium.strings(v.path("nasty")).stream().anyMatch(t -> t.contains(NASTY)), "markup shown as text: " + v.path("nasty"));
            assertEquals(List.of(), HeadlessChromium.strings(v.path("oddTags")));
            HeadlessChromium.assertOnlyInPageLinks(v.path("anchors"));
            HeadlessChromium.assertChartsDrawn(v.path("charts"), 2);
            assertTrue(HeadlessChromium.strings(v.path("revisit")).stream().anyMatch(t -> t.contains("NVLink")));
            assertEquals("steptrace decision: kimi-tp8", v.path("title").asText());
        }
    }
}
