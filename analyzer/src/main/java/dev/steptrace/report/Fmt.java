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

    /** A percentage rounded to a whole number, with the sign ({@code 35%}): a rule's round figure. */
    public static String wholePct(Double v) {
        if (missing(v)) {
            return NA;
        }
        return String.format(Locale.ROOT, "%.0f%%", v);
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

    /** Microseconds of a signed quantity (a clock offset): one decimal with its sign ({@code +600.0}, {@code -3.5}). */
    public static String signedUs(Double v) {
        return signed(v, "%.1f", 0.05);
    }

    /** Milliseconds to three decimals ({@code 0.664}): a diff is about small changes. */
    public static String fineMs(Double v) {
        return missing(v) ? NA : String.format(Locale.ROOT, "%.3f", v + 0.0);
    }

    /** A change in milliseconds, signed, three decimals: {@code +0.664}, {@code -2.648}, {@code 0.000}. */
    public static String signedMs(Double v) {
        return signed(v, "%.3f", 0.0005);
    }

    /** A change of a count per step, signed ({@link #count}): {@code +2}, {@code -0.5}, {@code 0}. */
    public static String signedCount(Double v) {
        if (missing(v)) {
            return NA;
        }
        String s = count(Math.abs(v));
        return s.equals("0") ? "0" : (v < 0 ? "-" : "+") + s;
    }

    /** A percentage change, signed, one decimal: {@code +20.0%}; {@value #NA} when there is none. */
    public static String signedPct(Double v) {
        String s = signed(v, "%.1f", 0.05);
        return s.equals(NA) ? s : s + "%";
    }

    /** An interval of signed changes in milliseconds: {@code [-2.763, -2.570]}; {@value #NA} when there is none. */
    public static String interval(List<Double> bounds) {
        if (bounds == null || bounds.size() != 2 || missing(bounds.get(0)) || missing(bounds.get(1))) {
            return NA;
        }
        return "[" + signedMs(bounds.get(0)) + ", " + signedMs(bounds.get(1)) + "]";
    }

    private static String signed(Double v, String format, double zero) {
        if (missing(v)) {
            return NA;
        }
        if (Math.abs(v) < zero) {
            return String.format(Locale.ROOT, format, 0.0);
        }
        return (v > 0 ? "+" : "") + String.format(Locale.ROOT, format, v);
    }

    /** A value a check compares (a count, a factor, a percentage): whole numbers as they are, others with two decimals. */
    public static String value(Double v) {
        if (missing(v)) {
            return NA;
        }
        return Math.rint(v) == v && Math.abs(v) < 1e9 ? Long.toString((long) (double) v) : String.format(Locale.ROOT, "%.2f", v);
    }

    /** A size of a model in a derivation (layers, heads, bits): whole numbers as they are, others to four significant digits. */
    public static String significant(Double v) {
        if (missing(v)) {
            return NA;
        }
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) (double) v) : String.format(Locale.ROOT, "%.4g", v);
    }

    /** A throughput in tokens per second: one decimal ({@code 71.3}). */
    public static String tokensPerSec(Double v) {
        return missing(v) ? NA : String.format(Locale.ROOT, "%.1f", v);
    }

    /** A number with {@code places} decimals: for a table of measured values written as their source gives them. */
    public static String decimals(Double v, int places) {
        return missing(v) ? NA : String.format(Locale.ROOT, "%." + places + "f", v);
    }

    /** Millions of a count per second ({@code 1.50} M events/s): two decimals. */
    public static String millionsPerSec(Double perSecond) {
        return missing(perSecond) ? NA : String.format(Locale.ROOT, "%.2f", perSecond / 1e6);
    }

    /** Seconds of work, one decimal ({@code 12.3}). */
    public static String seconds(Double v) {
        return missing(v) ? NA : String.format(Locale.ROOT, "%.1f", v);
    }

    /** A data size in decimal units, as a terminal line prints it: {@code 512 B}, {@code 1.4 GB}, {@code 440 MB}. */
    public static String size(long bytes) {
        if (bytes < 1000) {
            return bytes + " B";
        }
        String[] units = {"kB", "MB", "GB", "TB"};
        double v = bytes;
        int u = -1;
        while (v >= 1000 && u < units.length - 1) {
            v /= 1000;
            u++;
        }
        return String.format(Locale.ROOT, v >= 100 ? "%.0f %s" : "%.1f %s", v, units[u]);
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
