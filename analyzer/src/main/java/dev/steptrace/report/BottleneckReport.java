package dev.steptrace.report;

import java.util.List;
import java.util.Map;

/**
 * The bottleneck report of one capture: report.json (schema {@value #SCHEMA}, SPEC "report.json",
 * docs/report.schema.json) and the model the HTML and Markdown templates render. Field names map to
 * JSON in snake_case; a value the trace cannot support is null, never invented.
 *
 * @param phases per phase id ({@code decode}, {@code prefill}, {@code mixed}, {@code unknown}), in that order
 */
public record BottleneckReport(String schema, Tool tool, Capture capture, Map<String, Phase> phases,
                               List<Collective> collectives, List<RankSummary> ranks, List<Warning> warnings) {
    public static final String SCHEMA = "steptrace.report/1";

    public record Tool(String name, String version) {}

    /**
     * @param format    kineto, nsys-sqlite, nsys-parquet or nsys-arrow
     * @param worldSize from the traces' distributed metadata; null when none says
     */
    public record Capture(String path, String name, String format, int files, List<Integer> ranks,
                          Integer worldSize, List<String> devices, List<PartialFile> partialFiles) {}

    public record PartialFile(String file, String reason) {}

    /**
     * One phase across ranks.
     *
     * @param steps steps per rank (mean over ranks)
     */
    public record Phase(double steps, String stepSource, Stat kernelMsPerStep, Stat spanMsPerStep,
                        Stat busyMsPerStep, Stat hostGapMsPerStep, List<CategoryShare> categories,
                        List<TopKernel> topKernels) {}

    /**
     * A per-step quantity: mean, median and p90 over a rank's steps, averaged over ranks; min and max
     * name the ranks with the lowest and highest mean.
     */
    public record Stat(Double mean, Double median, Double p90, RankValue min, RankValue max) {}

    public record RankValue(int rank, double value) {}

    /** A headline category's time: share of total kernel time, calls per step. */
    public record CategoryShare(String id, String label, double msPerStep, double sharePct, double callsPerStep,
                                List<SubcategoryShare> subcategories) {}

    public record SubcategoryShare(String id, double msPerStep, double callsPerStep) {}

    public record TopKernel(String name, String category, String subcategory, String rule, double msPerStep,
                            double callsPerStep, double meanUs) {}

    /**
     * One collective type in one phase. {@code wait}/{@code transfer} split each instance's time into
     * the time beyond the fastest rank's duration and the fastest rank's duration (null with one rank).
     */
    public record Collective(String phase, String type, double callsPerStep, double meanUs, MessageBytes msgBytes,
                             Double busbwGbps, Double waitMsPerStep, Double transferMsPerStep) {}

    public record MessageBytes(double median) {}

    public record RankSummary(int rank, Map<String, RankPhase> phases) {}

    public record RankPhase(double steps, PerStep kernelMsPerStep, PerStep spanMsPerStep, List<CategoryShare> categories) {}

    /** One rank's per-step distribution. */
    public record PerStep(Double mean, Double median, Double p90) {}

    /** A capture-quality finding: a stable code and one sentence for people. */
    public record Warning(String code, String message) {}
}
