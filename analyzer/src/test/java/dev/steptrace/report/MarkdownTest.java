package dev.steptrace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class MarkdownTest {
    @Test
    void escapesWhatWouldBecomeMarkupOrBreakATable() {
        assertEquals("void k\\<a, b\\>(x\\&) \\| y", Markdown.escape("void k<a, b>(x&) | y"));
        assertEquals("fused\\_moe \\*a\\* \\`b\\` \\[c\\] \\~d \\$e \\\\", Markdown.escape("fused_moe *a* `b` [c] ~d $e \\"));
        assertEquals("\\# not a heading # here", Markdown.escape("# not a heading # here"));
        assertEquals("two lines", Markdown.escape("two\nlines"));
        assertEquals("51.5%", Markdown.escape("51.5%"));
    }

    @Test
    void codeSpansSurviveBackticksAndPipes() {
        assertEquals("`void k<a, b>(x&)`", Markdown.codeSpan("void k<a, b>(x&)"));
        assertEquals("``a`b``", Markdown.codeSpan("a`b"));
        assertEquals("``` ``x`` ```", Markdown.codeSpan("``x``"));
        assertEquals("`` `x ``", Markdown.codeSpan("`x"));
        assertEquals("`a|b`", Markdown.codeSpan("a|b"));
        assertEquals("`a\\|b`", Markdown.codeSpanInCell("a|b"));
        assertEquals("` `", Markdown.codeSpan(""));
        assertEquals("`a b`", Markdown.codeSpan("a\r\nb"));
    }

    @Test
    void formatsNumbersOneWayPerQuantity() {
        assertEquals("11.17", Fmt.ms(11.1749));
        assertEquals("<0.01", Fmt.ms(0.0031));
        assertEquals("0.00", Fmt.ms(0.0));
        assertEquals("n/a", Fmt.ms(null));
        assertEquals("n/a", Fmt.ms(Double.NaN));
        assertEquals("51.5%", Fmt.pct(51.49));
        assertEquals("127", Fmt.count(127.0));
        assertEquals("126.5", Fmt.count(126.5));
        assertEquals("88.0", Fmt.us(88.0));
        assertEquals("512 B", Fmt.bytes(512.0));
        assertEquals("14,336 B (14.0 KiB)", Fmt.bytes(14336.0));
        assertEquals("0–7", Fmt.ranks(java.util.List.of(3, 1, 0, 2, 4, 5, 6, 7)));
        assertEquals("0, 1, 3–5, 9", Fmt.ranks(java.util.List.of(0, 1, 3, 4, 5, 9)));
    }
}
