package dev.steptrace.decide;

import java.math.BigDecimal;
import java.util.Locale;

/** Number formatting for sentences of the memo (the tables use {@link dev.steptrace.report.Fmt}). */
final class Numbers {
    private Numbers() {}

    /** A number as a person writes it: {@code 25}, {@code 1.5}, {@code 0.35} (at most 4 decimals, no exponent). */
    static String plain(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "n/a";
        }
        BigDecimal d = BigDecimal.valueOf(v).setScale(4, java.math.RoundingMode.HALF_UP).stripTrailingZeros();
        return d.scale() < 0 ? d.setScale(0).toPlainString() : d.toPlainString();
    }

    static String ms(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    static String x(double v) {
        return String.format(Locale.ROOT, "%.2fx", v);
    }

    static String pct(double v) {
        return String.format(Locale.ROOT, "%.1f%%", v);
    }

    static String us(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
