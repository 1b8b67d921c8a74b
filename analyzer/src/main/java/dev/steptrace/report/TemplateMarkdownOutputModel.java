package dev.steptrace.report;

import freemarker.core.CommonTemplateMarkupOutputModel;

/** Markdown markup (or text to escape on output) inside a Freemarker template. */
public final class TemplateMarkdownOutputModel extends CommonTemplateMarkupOutputModel<TemplateMarkdownOutputModel> {
    TemplateMarkdownOutputModel(String plainTextContent, String markupContent) {
        super(plainTextContent, markupContent);
    }

    @Override
    public MarkdownOutputFormat getOutputFormat() {
        return MarkdownOutputFormat.INSTANCE;
    }
}
