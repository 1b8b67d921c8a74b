package dev.steptrace.report;

import dev.steptrace.common.Messages;
import freemarker.template.TemplateModelException;

/**
 * Safe Markdown (GitHub-flavored) for text that comes from traces: kernel names are C++ signatures
 * full of {@code < > & * _ |} and sometimes backticks. Templates reach these methods as {@code md};
 * they return markup that the Markdown output format writes as is.
 */
public final class Markdown {
    /** Characters that would start emphasis, links, code, HTML, entities, strikethrough, math or cells. */
    private static final String SPECIAL = "\\`*_[]<>|&~$";

    /** The instance templates call ({@code ${md.code(name)}}). */
    public static final Markdown HELPER = new Markdown();

    /**
     * Plain text escaped for Markdown: special characters get a backslash, line breaks become spaces
     * (a table row is one line), and a leading {@code #} cannot start a heading.
     */
    public static String escape(String text) {
        if (text == null) {
            return "";
        }
        String s = oneLine(text);
        StringBuilder sb = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (SPECIAL.indexOf(c) >= 0 || (i == 0 && c == '#')) {
                sb.append('\\');
            }
            sb.append(c);
        }
        return sb.toString();
    }

    /**
     * A code span: delimited by one more backtick than the longest run inside, padded with a space
     * where the content starts or ends with a backtick.
     */
    public static String codeSpan(String text) {
        String s = oneLine(text == null ? "" : text);
        if (s.isEmpty()) {
            return "` `";
        }
        int longest = 0;
        int run = 0;
        for (int i = 0; i < s.length(); i++) {
            run = s.charAt(i) == '`' ? run + 1 : 0;
            longest = Math.max(longest, run);
        }
        String fence = "`".repeat(longest + 1);
        boolean pad = s.startsWith("`") || s.endsWith("`") || (s.startsWith(" ") && s.endsWith(" ") && !s.isBlank());
        return pad ? fence + " " + s + " " + fence : fence + s + fence;
    }

    /**
     * A code span inside a table cell: as {@link #codeSpan}, with pipes escaped (GFM splits cells on
     * unescaped pipes even inside code spans, and renders {@code \|} there as {@code |}).
     */
    public static String codeSpanInCell(String text) {
        return codeSpan(text).replace("|", "\\|");
    }

    /** One line of text, with any character that would act on a terminal written out ({@link Messages#printable}). */
    private static String oneLine(String s) {
        return Messages.printable(s.replace("\r\n", " ").replace('\n', ' ').replace('\r', ' ').replace('\t', ' '));
    }

    // ---- template-facing methods: markup the output format does not escape again ----

    /** {@code ${md.code(name)}}: a code span (outside tables). */
    public TemplateMarkdownOutputModel code(String text) throws TemplateModelException {
        return MarkdownOutputFormat.INSTANCE.fromMarkup(codeSpan(text));
    }

    /** {@code ${md.codeCell(name)}}: a code span for a table cell. */
    public TemplateMarkdownOutputModel codeCell(String text) throws TemplateModelException {
        return MarkdownOutputFormat.INSTANCE.fromMarkup(codeSpanInCell(text));
    }

    /** {@code ${md.raw(markdown)}}: markup the template trusts (prefer {@code ?no_esc}). */
    public TemplateMarkdownOutputModel raw(String markup) throws TemplateModelException {
        return MarkdownOutputFormat.INSTANCE.fromMarkup(markup == null ? "" : markup);
    }
}
