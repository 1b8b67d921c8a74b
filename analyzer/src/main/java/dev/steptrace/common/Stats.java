package dev.steptrace.common;

import java.util.List;

/** The statistics computed in Java (DuckDB computes the rest): one definition of each. */
public final class Stats {
    private Stats() {}

    /**
     * The mean, summed in the values' order. The mean of no values is 0: where the report, the diff or the
     * synthetic ground truth averages over nothing it averages a count of nothing (steps of no rank, waits of no
     * step); a caller for which no values means "unknown" says so before asking.
     */
    public static double mean(double[] values) {
        double sum = 0;
        for (double d : values) {
            sum += d;
        }
        return values.length == 0 ? 0 : sum / values.length;
    }

    /** {@link #mean(double[])} of a list. */
    public static double mean(List<Double> values) {
        return mean(values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /** {@link #mean(double[])} of counts. */
    public static double mean(int[] values) {
        return mean(java.util.Arrays.stream(values).asDoubleStream().toArray());
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
