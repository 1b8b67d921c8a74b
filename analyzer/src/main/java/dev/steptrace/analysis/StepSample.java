package dev.steptrace.analysis;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The steps of one phase of one capture as a bootstrap sees them: cells (one per rank and step), each
 * with its rank and its step index within the phase ({@code phase_index}, how the analysis matches
 * steps across ranks). A per-step quantity is a {@code double[]} over the cells (NaN where the step
 * cannot support it).
 *
 * <p>The statistic is the report's: per rank, the mean over the rank's steps; then the mean over ranks.
 * A resample draws step indices with replacement (as many as there are) and weights each cell by how
 * often its index was drawn, so the values of all ranks at one step travel together (a collective's
 * wait on one rank and the late arrival of another stay paired).
 */
final class StepSample {
    private final int[] rankOf;
    private final int[] indexOf;
    private final int ranks;
    private final int indexes;
    /** Every rank has exactly one cell at every index: the statistic collapses to a mean over indexes. */
    private final boolean rectangular;

    /**
     * @param rankOf  per cell, the rank's position (0..ranks-1)
     * @param indexOf per cell, the step index's position (0..indexes-1)
     */
    StepSample(int[] rankOf, int[] indexOf, int ranks, int indexes) {
        this.rankOf = rankOf;
        this.indexOf = indexOf;
        this.ranks = ranks;
        this.indexes = indexes;
        boolean rect = rankOf.length == (long) ranks * indexes;
        if (rect) {
            boolean[] seen = new boolean[rankOf.length];
            for (int i = 0; i < rankOf.length && rect; i++) {
                int k = rankOf[i] * indexes + indexOf[i];
                rect = !seen[k];
                seen[k] = true;
            }
        }
        this.rectangular = rect;
    }

    int cells() {
        return rankOf.length;
    }

    /** Distinct step indices: the number drawn per resample. */
    int indexes() {
        return indexes;
    }

    /** Per step index, how often one resample drew it. */
    int[] draw(SplittableRandom rng) {
        int[] w = new int[indexes];
        for (int i = 0; i < indexes; i++) {
            w[rng.nextInt(indexes)]++;
        }
        return w;
    }

    /** Weights that reproduce the sample itself (every index once). */
    int[] identity() {
        int[] w = new int[indexes];
        Arrays.fill(w, 1);
        return w;
    }

    /** A quantity prepared for many resamples. */
    Prepared prepare(double[] values) {
        boolean anyNaN = false;
        for (double v : values) {
            anyNaN |= Double.isNaN(v);
        }
        if (rectangular && !anyNaN) {
            double[] byIndex = new double[indexes];
            for (int i = 0; i < values.length; i++) {
                byIndex[indexOf[i]] += values[i];
            }
            for (int j = 0; j < indexes; j++) {
                byIndex[j] /= ranks;
            }
            return w -> {
                double num = 0;
                int den = 0;
                for (int j = 0; j < indexes; j++) {
                    num += w[j] * byIndex[j];
                    den += w[j];
                }
                return den == 0 ? Double.NaN : num / den;
            };
        }
        return w -> {
            double[] num = new double[ranks];
            long[] den = new long[ranks];
            for (int i = 0; i < values.length; i++) {
                double v = values[i];
                if (!Double.isNaN(v)) {
                    int wi = w[indexOf[i]];
                    num[rankOf[i]] += wi * v;
                    den[rankOf[i]] += wi;
                }
            }
            double sum = 0;
            int n = 0;
            for (int r = 0; r < ranks; r++) {
                if (den[r] > 0) {
                    sum += num[r] / den[r];
                    n++;
                }
            }
            return n == 0 ? Double.NaN : sum / n;
        };
    }

    /** The statistic of a quantity under given index weights. */
    interface Prepared {
        double at(int[] weights);
    }
}
