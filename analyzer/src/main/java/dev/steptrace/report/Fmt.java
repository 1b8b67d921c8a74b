package dev.steptrace.report;

import dev.steptrace.common.Messages;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Locale;

/**
 * How the reports, diffs and decision memos print numbers, in tables and in sentences: one rule per kind
 * of quantity so a number reads the same everywhere. A missing value (null, NaN) prints as {@value #NA}, never as 0 or "null".
 */
public final class Fmt {
    private Fmt() {}

    public static final String NA = "n/a";

    private static boolean missing(Double v) {
        return v == null || v.isNaN() || v.isInfinite();
    }

    /** Milliseconds: two decimals ({@code 11.17}); a positive value below 0.005 prints as {@code <0.01}. */
    public static String ms(Double v) {
        if (missing(v)) {
            return NA;
        }
        if (v > 0 && v < 0.005) {
            return "<0.01";
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }

    /** A percentage: one decimal and the sign ({@code 51.5%}). */
    public static String pct(Double v) {
        if (missing(v)) {
            return NA;
        }
        return String.format(Locale.ROOT, "%.1f%%", v);
    }

    /** A count per step: an integer when whole ({@code 127}), else one decimal ({@code 126.5}). */
    public static String count(Double v) {
        if (missing(v)) {
            return NA;
        }
        double r = Math.rint(v);
        if (Math.abs(v - r) < 0.05) {
            return String.format(Locale.ROOT, "%d", (long) r);
        }
        return String.format(Locale.ROOT, "%.1f", v);
    }

    /** Microseconds: one decimal ({@code 88.0}). */
    public static String us(Double v) {
        if (missing(v)) {
            return NA;
        }
        return String.format(Locale.ROOT, "%.1f", v);
    }

    /** A bandwidth in GB/s: two decimals. */
    public static String gbps(Double v) {
        if (missing(v)) {
            return NA;
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }

    /** A byte count: exact with separators, and binary units from 1 KiB ({@code 14,336 B (14.0 KiB)}). */
    public static String bytes(Double v) {
        if (missing(v)) {
            return NA;
        }
        long b = Math.round(v);
        String exact = String.format(Locale.ROOT, "%,d B", b);
        if (Math.abs(b) < 1024) {
            return exact;
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double x = b;
        int u = -1;
        while (Math.abs(x) >= 1024 && u < units.length - 1) {
            x /= 1024;
            u++;
        }
        return exact + String.format(Locale.ROOT, " (%.1f %s)", x, units[u]);
    }

    /** A rate or ratio of any size (TFLOP/s, FLOPs per byte): three significant digits ({@code 989}, {@code 23.3}, {@code 0.481}). */
    public static String rate(Double v) {
        if (missing(v)) {
            return NA;
        }
        double a = Math.abs(v);
        return String.format(Locale.ROOT, a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3g", v);
    }

    /** A speedup or another factor: two decimals and an x ({@code 1.25x}). */
    public static String speedup(Double v) {
        if (missing(v)) {
            return NA;
        }
        return String.format(Locale.ROOT, "%.2fx", v);
    }

    /** A number as a person writes it: {@code 25}, {@code 1.5}, {@code 0.35} (at most 4 decimals, no exponent). */
    public static String plain(Double v) {
        if (missing(v)) {
            return NA;
        }
        BigDecimal d = BigDecimal.valueOf(v).setScale(4, RoundingMode.HALF_UP).stripTrailingZeros();
        return d.scale() < 0 ? d.setScale(0).toPlainString() : d.toPlainString();
    }

    /** How many times a bound a measured time is: one decimal and a times sign ({@code 20.5×}). */
    public static String times(Double v) {
        if (missing(v)) {
            return NA;
        }
        return String.format(Locale.ROOT, "%.1f×", v);
    }

    /** A large quantity in decimal units: {@code 6.04 G} + unit ({@code GB}, {@code GFLOP}). */
    public static String si(Double v, String unit) {
        if (missing(v)) {
            return NA;
        }
        String[] prefixes = {"", "k", "M", "G", "T", "P"};
        double x = v;
        int i = 0;
        while (Math.abs(x) >= 1000 && i < prefixes.length - 1) {
            x /= 1000;
            i++;
        }
        return rate(x) + " " + prefixes[i] + unit;
    }

    /** Ranks as ranges: {@code 0–7}, {@code 0–3, 5, 7}. */
    public static String ranks(List<Integer> ranks) {
        if (ranks == null || ranks.isEmpty()) {
            return NA;
        }
        return Messages.ranges(ranks.stream().distinct().sorted().toList(), "–");
    }

    /** Any text: {@value #NA} when null or blank. */
    public static String text(String s) {
        return s == null || s.isBlank() ? NA : s;
    }
}
