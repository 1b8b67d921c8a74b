package dev.steptrace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.VectorGraphicsEncoder;

/**
 * {@link ReportCharts#inlineSvg}'s one-pass rewrite of XChart's SVG, against a hand-written case and,
 * on every chart of a report, against the same rules applied one regular expression at a time.
 */
class InlineSvgTest {
    @Test
    void rewritesIdsReferencesGeometryAndIndentation() {
        // Math.round takes halves up: -22.5 tenths is -22, so y=-2.25 becomes -2.2.
        String svg = "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10.5 20\">\n"
                + "  <clipPath id=\"clip1\"><rect x=\"0.04\" y=\"-2.25\" width=\"3.0\" height=\"12\"/></clipPath>\n"
                + "    <path clip-path=\"url(#clip1)\" d=\"M1.26 -0.04 L3.95,7.5\" style=\"stroke-width:1.25\"/>\n"
                + "<use xlink:href=\"#clip1\" transform=\"translate(1.449 2.45)\" opacity=\"0.55\"/></svg>";
        String expected = "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 10.5 20\" aria-labelledby=\"c_1-title\">"
                + "<title id=\"c_1-title\">A &lt;b&gt;</title>\n"
                + "<clipPath id=\"c_1-clip1\"><rect x=\"0\" y=\"-2.2\" width=\"3\" height=\"12\"/></clipPath>\n"
                + "<path clip-path=\"url(#c_1-clip1)\" d=\"M1.3 0 L4,7.5\" style=\"stroke-width:1.25\"/>\n"
                + "<use xlink:href=\"#c_1-clip1\" transform=\"translate(1.4 2.5)\" opacity=\"0.55\"/></svg>";
        assertEquals(expected, ReportCharts.inlineSvg(svg, "c.1", "A <b>"));
    }

    @Test
    void everyChartOfAReportMatchesTheRulesAppliedOneAtATime() throws Exception {
        for (ReportCharts.ReportChart chart : ReportCharts.build(ReportFixtures.kimi())) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            VectorGraphicsEncoder.saveVectorGraphic(chart.chart(), buf, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
            String svg = buf.toString(StandardCharsets.UTF_8);
            String inline = ReportCharts.inlineSvg(svg, chart.id(), chart.title());
            assertEquals(byRegexes(svg, chart.id(), chart.title()), inline, chart.id());
            assertFalse(inline.contains("<?xml"), chart.id());
        }
    }

    /** The rules of inlineSvg's javadoc, each one a regular expression over the whole markup. */
    private static String byRegexes(String svg, String idPrefix, String title) {
        String s = svg.substring(svg.indexOf("<svg"));
        String open = s.substring(0, s.indexOf('>') + 1);
        String body = s.substring(s.indexOf('>') + 1);
        Matcher vb = Pattern.compile("viewBox=\"([^\"]+)\"").matcher(open);
        String safeId = idPrefix.replaceAll("[^A-Za-z0-9_-]", "_");
        String head = "<svg class=\"chart\" role=\"img\"" + (vb.find() ? " viewBox=\"" + vb.group(1) + "\"" : "")
                + " aria-labelledby=\"" + safeId + "-title\"><title id=\"" + safeId + "-title\">"
                + title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;")
                + "</title>";
        body = Pattern.compile("\\bid=\"([^\"]+)\"").matcher(body)
                .replaceAll(m -> Matcher.quoteReplacement("id=\"" + safeId + "-" + m.group(1) + "\""));
        body = Pattern.compile("(url\\(#|href=\"#)([^)\"]+)").matcher(body)
                .replaceAll(m -> Matcher.quoteReplacement(m.group(1) + safeId + "-" + m.group(2)));
        body = Pattern.compile("\\b(d|transform|points|x|y|x1|y1|x2|y2|cx|cy|r|rx|ry|width|height)=\"([^\"]*)\"")
                .matcher(body).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + "=\"" + round(m.group(2)) + "\""));
        return head + body.replaceAll("\n\\s*", "\n");
    }

    private static String round(String s) {
        return Pattern.compile("-?\\d+\\.\\d+").matcher(s).replaceAll(m -> {
            long tenths = Math.round(Double.parseDouble(m.group()) * 10);
            return tenths % 10 == 0 ? Long.toString(tenths / 10)
                    : (tenths < 0 ? "-" : "") + Math.abs(tenths) / 10 + "." + Math.abs(tenths) % 10;
        });
    }
}
