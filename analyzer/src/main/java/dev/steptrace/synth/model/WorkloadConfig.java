package dev.steptrace.synth.model;

import dev.steptrace.classify.Category;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What determines the simulated workload, independent of how it is written: equal configs give the
 * same durations, ids and timestamps.
 *
 * @param scales       duration factor per category; categories not listed keep factor 1
 * @param slowRanks    duration factor of the compute kernels of a rank (a straggler); ranks not listed keep 1
 * @param clockOffsets nanoseconds added to a rank's clock (ranks of another host); ranks not listed add 0
 * @param commStream   collectives run on a stream of their own, under the compute that follows them
 * @param hostOverhead factor of the host's time per eager launch (op dispatch, launch call); 1 = as measured
 * @param layers       the model's first layers to run, 1 to {@link #MAX_LAYERS}: fewer make a small rank file (the
 *                     step's category times stay the preset's; each kernel takes a larger share)
 * @param fixedTransfers a collective's transfer keeps its nominal duration whatever the waits before it (as on
 *                     hardware; a straggler then lengthens the step by its extra work); else the transfer shrinks
 *                     by the mean wait, so the presets' per-step means do not depend on the ranks' skew
 */
public record WorkloadConfig(Preset preset, int ranks, int batch, long seed, Map<Category, Double> scales,
                             Map<Integer, Double> slowRanks, Map<Integer, Long> clockOffsets, boolean commStream,
                             double hostOverhead, int layers, boolean fixedTransfers) {
    public static final int MAX_RANKS = 4096;
    public static final int MAX_BATCH = 4096;
    /** The reference model's layers (docs/synth.md). */
    public static final int MAX_LAYERS = MoeModel.LAYERS;
    public static final double MAX_SCALE = 1000;
    /** Clock offsets up to a minute either way: far beyond real clock skew, far within the epoch. */
    public static final long MAX_HOST_CLOCK_OFFSET_NS = 60_000_000_000L;

    public WorkloadConfig {
        Objects.requireNonNull(preset, "preset");
        require(ranks >= 1 && ranks <= MAX_RANKS, "--ranks must be between 1 and " + MAX_RANKS);
        require(batch >= 1 && batch <= MAX_BATCH, "--batch must be between 1 and " + MAX_BATCH);
        require(layers >= 1 && layers <= MAX_LAYERS, "--layers must be between 1 and " + MAX_LAYERS);
        EnumMap<Category, Double> copy = new EnumMap<>(Category.class);
        copy.putAll(scales);
        for (Map.Entry<Category, Double> e : copy.entrySet()) {
            double f = e.getValue();
            require(Double.isFinite(f) && f > 0 && f <= MAX_SCALE,
                    "--scale " + e.getKey().id() + "=" + f + ": the factor must be a positive number up to " + (int) MAX_SCALE);
        }
        scales = Collections.unmodifiableMap(copy);
        TreeMap<Integer, Double> slow = new TreeMap<>(slowRanks);
        for (Map.Entry<Integer, Double> e : slow.entrySet()) {
            double f = e.getValue();
            require(e.getKey() >= 0 && e.getKey() < ranks,
                    "--slow-rank " + e.getKey() + "=" + f + ": the rank must be between 0 and " + (ranks - 1));
            require(Double.isFinite(f) && f > 0 && f <= MAX_SCALE,
                    "--slow-rank " + e.getKey() + "=" + f + ": the factor must be a positive number up to " + (int) MAX_SCALE);
        }
        slowRanks = Collections.unmodifiableMap(slow);
        for (Map.Entry<Integer, Long> e : clockOffsets.entrySet()) {
            require(e.getKey() >= 0 && e.getKey() < ranks, "--clock-offset: rank " + e.getKey()
                    + " is not one of the " + ranks + " ranks");
            require(Math.abs(e.getValue()) <= MAX_HOST_CLOCK_OFFSET_NS, "--clock-offset: " + e.getValue()
                    + " ns is more than a minute");
        }
        clockOffsets = Collections.unmodifiableMap(new TreeMap<>(clockOffsets));
        require(Double.isFinite(hostOverhead) && hostOverhead > 0 && hostOverhead <= MAX_SCALE,
                "--host-overhead " + hostOverhead + ": the factor must be a positive number up to " + (int) MAX_SCALE);
    }

    /**
     * A workload of the whole model without slow ranks, side streams or host slowdown, whose ranks share one
     * clock (up to the few microseconds each is off by).
     */
    public WorkloadConfig(Preset preset, int ranks, int batch, long seed, Map<Category, Double> scales) {
        this(preset, ranks, batch, seed, scales, Map.of(), Map.of(), false, 1, MAX_LAYERS, false);
    }

    /** The factor for a rank's compute kernel durations (1 unless slowed). */
    public double slowdown(int rank) {
        return slowRanks.getOrDefault(rank, 1.0);
    }

    /** The factor for a category's durations (1 unless scaled). */
    public double scale(Category category) {
        return scales.getOrDefault(category, 1.0);
    }

    static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
