package dev.steptrace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TemplateLoaderTest {
    @Test
    void builtInTemplatesArePackagedUnderTheResourcePath() {
        for (String name : List.of("report.html.ftl", "report.md.ftl", "macros.html.ftl", "report.css")) {
            assertTrue(TemplateLoader.class.getResource(TemplateLoader.RESOURCE_PATH + "/" + name) != null, name);
        }
    }

    @Test
    void overrideDirectoryTakesPrecedenceForTheFilesItHas(@TempDir Path templates, @TempDir Path out) throws IOException {
        Files.writeString(templates.resolve("report.md.ftl"),
                "CUSTOM ${view.captureName} <#list view.phases as p>${p.id}=${p.headline.kernelMean} </#list>${md.code(\"a|b\")}\n");
        Files.writeString(templates.resolve("report.css"), "body { --custom-marker: 1; }\n");
        TemplateLoader loader = new TemplateLoader(templates);
        assertTrue(loader.isOverridden("report.md.ftl"));
        assertFalse(loader.isOverridden("report.html.ftl"));

        List<Path> md = new MarkdownReportWriter(loader, false).write(ReportFixtures.kimi(), out);
        assertEquals("CUSTOM decode-bs1 decode=21.70 prefill=74.90 `a|b`\n", Files.readString(md.get(0)));

        // report.html.ftl is still the built-in one, with the user's stylesheet in it
        String html = Files.readString(new HtmlReportWriter(loader, false).write(ReportFixtures.kimi(), out));
        assertTrue(html.contains("--custom-marker: 1;"));
        assertFalse(html.contains("--max-bg"), "built-in stylesheet replaced");
        assertTrue(html.contains("id=\"headline-decode\""));
    }

    @Test
    void overrideTemplatesAreEscapedByFileNameWhateverTheySay(@TempDir Path templates, @TempDir Path out) throws IOException {
        Files.writeString(templates.resolve("report.html.ftl"),
                "<#list view.phases as p><#list p.topKernels as k><p>${k.name.full}</p></#list></#list>");
        Files.writeString(templates.resolve("report.md.ftl"), "<#list view.warnings as w>${w.message}\n</#list>");
        TemplateLoader loader = new TemplateLoader(templates);
        String html = Files.readString(new HtmlReportWriter(loader, false).write(ReportFixtures.kimi(), out));
        assertTrue(html.contains("<p>void k&lt;a, b&gt;(x&amp;)</p>"), html);
        assertFalse(html.contains("<a, b>"));
        String md = Files.readString(new MarkdownReportWriter(loader, false).write(ReportFixtures.kimi(), out).get(0));
        assertTrue(md.contains("no launch \\<in the trace\\> \\& were"), md);
    }

    @Test
    void writersTakeTheTemplatesDirectoryAsAnOption(@TempDir Path templates, @TempDir Path out) throws IOException {
        Files.writeString(templates.resolve("report.html.ftl"), "<p>${view.title}</p>");
        Path html = HtmlReportWriter.write(ReportFixtures.kimi(), out, templates);
        assertEquals("<p>steptrace report: decode-bs1</p>", Files.readString(html));
        Path builtIn = HtmlReportWriter.write(ReportFixtures.kimi(), out.resolve("b"), null);
        assertTrue(Files.readString(builtIn).startsWith("<!DOCTYPE html>"));
    }

    @Test
    void brokenTemplatesFailWithOneLineNamingFileAndLine(@TempDir Path templates) throws IOException {
        Files.writeString(templates.resolve("report.md.ftl"), "line one\n${view.noSuchField}\n");
        Files.writeString(templates.resolve("report.html.ftl"), "<#if>\n");
        TemplateLoader loader = new TemplateLoader(templates);
        ReportTemplateException missing = assertThrows(ReportTemplateException.class,
                () -> loader.render("report.md.ftl", Map.of("view", Map.of())));
        assertTrue(missing.getMessage().startsWith("report template " + templates.resolve("report.md.ftl") + " line 2, column 3: "),
                missing.getMessage());
        assertFalse(missing.getMessage().contains("\n"));
        ReportTemplateException syntax = assertThrows(ReportTemplateException.class,
                () -> loader.render("report.html.ftl", Map.of()));
        assertTrue(syntax.getMessage().contains("report.html.ftl line 1"), syntax.getMessage());
        assertFalse(syntax.getMessage().contains("\n"));
        ReportTemplateException absent = assertThrows(ReportTemplateException.class,
                () -> loader.render("nope.html.ftl", Map.of()));
        assertEquals("report template nope.html.ftl not found (looked in " + templates.toAbsolutePath().normalize()
                + " and the built-in templates)", absent.getMessage());
    }

    @Test
    void aMissingTemplatesDirectoryIsAClearError(@TempDir Path dir) {
        Path nowhere = dir.resolve("nowhere");
        ReportTemplateException e = assertThrows(ReportTemplateException.class, () -> new TemplateLoader(nowhere));
        assertEquals("templates directory " + nowhere + " does not exist or is not a directory", e.getMessage());
    }

    @Test
    void templatesCannotReachJavaClasses(@TempDir Path templates) throws IOException {
        Files.writeString(templates.resolve("evil.md.ftl"), "<#assign ex = \"freemarker.template.utility.Execute\"?new()>${ex(\"id\")}");
        TemplateLoader loader = new TemplateLoader(templates);
        assertThrows(ReportTemplateException.class, () -> loader.render("evil.md.ftl", Map.of()));
    }
}
