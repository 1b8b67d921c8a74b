package dev.steptrace.common;

import java.util.List;

/** The statistics computed in Java (DuckDB computes the rest): one definition of each. */
public final class Stats {
    private Stats() {}

    /** The mean, in the values' order; NaN when there are none. */
    public static double mean(List<Double> values) {
        double sum = 0;
        for (double d : values) {
            sum += d;
        }
        return values.isEmpty() ? Double.NaN : sum / values.size();
    }

    /**
     * The {@code q} quantile of sorted values by linear interpolation between closest ranks (DuckDB's
     * {@code quantile_cont}); NaN when there are none.
     */
    public static double quantile(double[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        double pos = q * (sorted.length - 1);
        int i = (int) Math.floor(pos);
        int j = Math.min(i + 1, sorted.length - 1);
        return sorted[i] + (pos - i) * (sorted[j] - sorted[i]);
    }

    /** {@link #quantile(double[], double)} of a sorted list. */
    public static double quantile(List<Double> sorted, double q) {
        return quantile(sorted.stream().mapToDouble(Double::doubleValue).toArray(), q);
    }
}
