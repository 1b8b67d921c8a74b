package dev.steptrace.cli;

import java.util.Locale;

/** Byte counts as people write them: parse {@code 2GB}, {@code 512MiB} (printed by {@link dev.steptrace.report.Fmt#size}). */
final class Bytes {
    private Bytes() {}

    /** Parses sizes such as {@code 2GB}, {@code 2G}, {@code 500MB}, {@code 1GiB}, {@code 1234}. */
    static long parse(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT).replace(" ", "");
        int i = 0;
        while (i < t.length() && (Character.isDigit(t.charAt(i)) || t.charAt(i) == '.')) {
            i++;
        }
        if (i == 0) {
            throw new IllegalArgumentException("not a size: " + text);
        }
        double n = Double.parseDouble(t.substring(0, i));
        String unit = t.substring(i);
        long mult;
        switch (unit) {
            case "": case "B": mult = 1; break;
            case "K": case "KB": mult = 1000L; break;
            case "KIB": mult = 1L << 10; break;
            case "M": case "MB": mult = 1000_000L; break;
            case "MIB": mult = 1L << 20; break;
            case "G": case "GB": mult = 1000_000_000L; break;
            case "GIB": mult = 1L << 30; break;
            case "T": case "TB": mult = 1000_000_000_000L; break;
            default: throw new IllegalArgumentException("unknown size unit in " + text + " (use B, KB, MB, GB, KiB, MiB, GiB)");
        }
        return (long) (n * mult);
    }
}
