package dev.steptrace.report;

import freemarker.core.CommonMarkupOutputFormat;
import java.io.IOException;
import java.io.Writer;

/**
 * Freemarker output format for {@code *.md.ftl} templates: {@code ${...}} escapes Markdown (see
 * {@link Markdown#escape}), so a kernel name or warning cannot break a table or start emphasis;
 * {@code md.code(...)}, {@code md.codeCell(...)} and {@code ?no_esc} write markup as is.
 */
public final class MarkdownOutputFormat extends CommonMarkupOutputFormat<TemplateMarkdownOutputModel> {
    public static final MarkdownOutputFormat INSTANCE = new MarkdownOutputFormat();

    private MarkdownOutputFormat() {}

    @Override
    public String getName() {
        return "Markdown";
    }

    @Override
    public String getMimeType() {
        return "text/markdown";
    }

    @Override
    public void output(String textToEsc, Writer out) throws IOException {
        out.write(Markdown.escape(textToEsc));
    }

    @Override
    public String escapePlainText(String plainTextContent) {
        return Markdown.escape(plainTextContent);
    }

    @Override
    public boolean isLegacyBuiltInBypassed(String builtInName) {
        return false;
    }

    @Override
    protected TemplateMarkdownOutputModel newTemplateMarkupOutputModel(String plainTextContent, String markupContent) {
        return new TemplateMarkdownOutputModel(plainTextContent, markupContent);
    }
}
