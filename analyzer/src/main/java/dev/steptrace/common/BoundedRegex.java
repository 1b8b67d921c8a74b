package dev.steptrace.common;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Regular expressions from users' files (taxonomy rules, device peaks, {@code --step-regex}) matched with a
 * bound on their work. Java's regex engine backtracks: a pattern such as {@code (.*a){25}!x} takes longer than
 * the age of the universe on a 100-character kernel name, and a run would hang on one rule. The bound counts
 * the characters the match reads: {@value #READS} reads, or {@value #READS_PER_CHAR} per character of a longer
 * text (a fraction of a second). The built-in rules read at most 106,233 characters, about 21 per character,
 * on the 1,107 distinct names of the sample and compatibility captures (the longest 5,123 characters). A
 * match past the bound stops with {@link TooSlow}, which names the pattern.
 */
public final class BoundedRegex {
    /** Characters one match may read, whatever the text's length. */
    static final long READS = 20_000_000L;
    /** Characters one match may read per character of its text, where that gives more. */
    static final long READS_PER_CHAR = 1_000L;

    private BoundedRegex() {}

    /** {@code p.matcher(text).find()}, bounded. */
    public static boolean find(Pattern p, String text) {
        return matcher(p, text).find();
    }

    /** A matcher of {@code p} over {@code text} whose matching is bounded (groups as usual). */
    public static Matcher matcher(Pattern p, String text) {
        return p.matcher(new Counted(p, text));
    }

    /** A match that read more than the bound allows: the pattern backtracks without end on this text. */
    public static final class TooSlow extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TooSlow(Pattern p, String text) {
            super("the regular expression " + Messages.printable(p.pattern()) + " takes too long on a name of "
                    + text.length() + " characters (it backtracks without end, as nested quantifiers like (.*a){25}"
                    + " do): rewrite it", null, false, false);
        }

        private TooSlow(String message) {
            super(message, null, false, false);
        }

        /** The same failure, saying where the pattern comes from ({@code taxonomy rule my_gemm (rules.yaml)}). */
        public TooSlow in(String where) {
            return new TooSlow(where + ": " + getMessage());
        }
    }

    /** The text, counting each character the engine reads. */
    private static final class Counted implements CharSequence {
        private final Pattern pattern;
        private final String text;
        private final int offset;
        private final int length;
        private final long[] reads;
        private final long limit;

        Counted(Pattern pattern, String text) {
            this(pattern, text, 0, text.length(), new long[1]);
        }

        private Counted(Pattern pattern, String text, int offset, int length, long[] reads) {
            this.limit = Math.max(READS, READS_PER_CHAR * text.length());
            this.pattern = pattern;
            this.text = text;
            this.offset = offset;
            this.length = length;
            this.reads = reads;
        }

        @Override
        public char charAt(int index) {
            if (++reads[0] > limit) {
                throw new TooSlow(pattern, text);
            }
            return text.charAt(offset + index);
        }

        @Override
        public int length() {
            return length;
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new Counted(pattern, text, offset + start, end - start, reads);
        }

        @Override
        public String toString() {
            return text.substring(offset, offset + length);
        }
    }
}
