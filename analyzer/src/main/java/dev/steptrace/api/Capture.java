package dev.steptrace.api;

import dev.steptrace.analysis.CaptureAnalysis;
import dev.steptrace.store.CaptureScope;
import dev.steptrace.analysis.ReportBuilder;
import dev.steptrace.analysis.HostSyncCalls;
import dev.steptrace.analysis.StoredAnalysis;
import dev.steptrace.common.BoundedRegex;
import dev.steptrace.common.Messages;
import dev.steptrace.common.Phase;
import dev.steptrace.whatif.Changes;
import dev.steptrace.whatif.WhatIf;
import dev.steptrace.report.BottleneckReport.CategoryShare;
import dev.steptrace.report.BottleneckReport.Collective;
import dev.steptrace.report.BottleneckReport.PartShare;
import dev.steptrace.report.BottleneckReport.PhaseSummary;
import dev.steptrace.report.BottleneckReport.RankPhase;
import dev.steptrace.report.BottleneckReport.RankSummary;
import dev.steptrace.report.BottleneckReport.StepTime;
import dev.steptrace.report.BottleneckReport.SubcategoryShare;
import dev.steptrace.report.BottleneckReport.TopKernel;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.report.BottleneckReport;
import dev.steptrace.report.ReportContent;
import dev.steptrace.report.ReportWriters;
import dev.steptrace.roofline.RooflineInputs;
import dev.steptrace.timeline.Timeline;
import dev.steptrace.timeline.TimelineOptions;
import dev.steptrace.timeline.TimelineResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * One capture, analysed: its steps and phases, per-step metrics by kernel category, kernels, collective
 * instances, and the bottleneck report, with Tablesaw tables to explore them. The numbers are the
 * report's: {@link #breakdown} is report.json's {@code categories}, {@link #kernels} its
 * {@code top_kernels} (all of them, not only the first 20), {@link #collectiveSummary} its
 * {@code collectives}.
 *
 * <p>The analysis lives in the store's analysis tables (docs/schema.md, "The analysis": {@code steps},
 * {@code step_metrics}, {@code step_categories}, {@code step_kernels}, {@code kernel_classes},
 * {@code collective_instances}, {@code collective_arrivals}, {@code launch_delays}, {@code replay_latencies},
 * {@code graph_replays}, {@code kernel_work}, {@code op_shape_calls}...), under this capture's id and analysis key:
 * {@link #sql} runs on the store, and {@link #where()} is the condition that selects this capture's rows
 * ({@code capture_id = 2 AND analysis_key = 'default'}).
 */
public final class Capture implements AutoCloseable {
    private final Steptrace owner;
    private final StoredAnalysis analysis;
    /** The device peaks and model file of the report's roofline (not the analysis's: docs/roofline.md). */
    private final RooflineInputs roofline;
    /** A read-only store's analysis: temp tables of this connection, open while the capture is (else null). */
    private final CaptureAnalysis readOnlyAnalysis;
    private ReportContent content;
    private boolean closed;

    Capture(Steptrace owner, StoredAnalysis analysis, RooflineInputs roofline, CaptureAnalysis readOnlyAnalysis) {
        this.owner = owner;
        this.analysis = analysis;
        this.roofline = roofline;
        this.readOnlyAnalysis = readOnlyAnalysis;
    }

    /**
     * The store's id of the capture ({@code captures.capture_id}).
     *
     * @return the id
     */
    public int id() {
        return analysis.scope().captureId();
    }

    /**
     * The capture's name: its directory's name.
     *
     * @return the name
     */
    public String name() {
        return analysis.scope().name();
    }

    /**
     * The capture's directory.
     *
     * @return the absolute path
     */
    public Path path() {
        return analysis.scope().path();
    }

    /**
     * The ranks of the capture's files.
     *
     * @return the ranks, sorted
     */
    public List<Integer> ranks() {
        return analysis.scope().ranks();
    }

    /**
     * Where the steps came from: report.json's {@code step_source} ({@code vllm_annotation},
     * {@code profiler_step}, {@code graph_launch}, ...).
     *
     * @return the step source id
     */
    public String stepSource() {
        return analysis.stepSource().id();
    }

    /**
     * The phases the capture has steps in, in report order ({@code decode}, {@code prefill},
     * {@code mixed}, {@code unknown}).
     *
     * @return the phase ids
     */
    public List<String> phases() {
        return List.copyOf(report().phases().keySet());
    }

    /**
     * The key of the analysis in the store's analysis tables ({@code analysis_key}): {@code default} for
     * the built-in taxonomy and step sources.
     *
     * @return the analysis key
     */
    public String analysisKey() {
        return analysis.key();
    }

    /**
     * The SQL condition that selects this capture's analysis rows in the store's analysis tables, for
     * {@link #sql}: {@code capture_id = 2 AND analysis_key = 'default'}.
     *
     * @return the condition
     */
    public String where() {
        return analysis.where();
    }

    /**
     * Capture-quality warnings (partial files, kernels outside any step, ...), as the report lists them:
     * the kept analysis's, then those of the report's device peaks and model file.
     *
     * @return the warnings
     */
    public List<Warning> warnings() {
        return report().warnings();
    }

    /**
     * The bottleneck report: report.json's content.
     *
     * @return the report
     */
    public BottleneckReport report() {
        return reportContent().report();
    }

    /**
     * The report with its per-step series (what the HTML and Markdown writers render). Built once.
     *
     * @return the report content
     */
    public synchronized ReportContent reportContent() {
        open();
        if (content == null) {
            try {
                content = new ReportBuilder(analysis, roofline).build(Steptrace.version());
            } catch (BoundedRegex.TooSlow e) {
                throw new SteptraceException(e.getMessage(), e);
            } catch (SQLException e) {
                throw SteptraceException.internal("building the report of " + name() + " failed: "
                        + Messages.firstLine(e.getMessage()), e);
            }
        }
        return content;
    }

    /**
     * Writes report.json, report.html and report.md (with its PNG charts) into {@code dir}.
     *
     * @param dir the output directory (created when missing)
     * @return the files written
     */
    public List<Path> writeReport(Path dir) {
        return writeReport(dir, null, null, true, true, true);
    }

    /**
     * Writes the chosen report outputs, as {@code steptrace report} does.
     *
     * @param dir       the output directory (created when missing)
     * @param templates a directory of Freemarker templates overriding the built-in ones, or null
     * @param phase     only this phase, or null for all
     * @param json      write report.json
     * @param html      write report.html
     * @param markdown  write report.md and its PNG charts
     * @return the files written: report.json, report.html, report.md, PNGs
     */
    public List<Path> writeReport(Path dir, Path templates, String phase, boolean json, boolean html,
                                  boolean markdown) {
        return writeReport(reportContent(), name(), dir, templates, phase, json, html, markdown);
    }

    /**
     * Writes the chosen report outputs, as {@code steptrace report} does, and with {@code timeline} the
     * timeline of the slowest step beside them ({@link TimelineOptions#slowestAlone} of {@code phase};
     * docs/timeline.md), made while the documents are written.
     *
     * @param dir       the output directory (created when missing)
     * @param templates a directory of Freemarker templates overriding the built-in ones, or null
     * @param phase     only this phase, or null for all
     * @param json      write report.json
     * @param html      write report.html
     * @param markdown  write report.md and its PNG charts
     * @param timeline  also write the slowest step's timeline (when the capture has steps)
     * @return the files written: report.json, report.html, report.md, PNGs, the timeline
     */
    public List<Path> writeReport(Path dir, Path templates, String phase, boolean json, boolean html,
                                  boolean markdown, boolean timeline) {
        ReportContent report = reportContent();
        boolean hasSteps = phase == null ? !report.report().phases().isEmpty() : report.report().phases().containsKey(phase);
        if (!timeline || !hasSteps) {
            return writeReport(dir, templates, phase, json, html, markdown);
        }
        // The timeline need not hold up the documents.
        FutureTask<Path> beside = new FutureTask<>(() -> writeTimeline(dir, TimelineOptions.slowestAlone(phase)).file());
        Thread t = new Thread(beside, "steptrace-timeline");
        t.setDaemon(true);
        t.start();
        List<Path> written = new ArrayList<>(writeReport(dir, templates, phase, json, html, markdown));
        try {
            written.add(beside.get());
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r
                    : SteptraceException.internal("writing the timeline of " + name() + " failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw SteptraceException.internal("interrupted while writing the timeline of " + name(), e);
        }
        return written;
    }

    /** Writes the chosen outputs of {@code content}, the report of capture {@code name}. */
    static List<Path> writeReport(ReportContent content, String name, Path dir, Path templates, String phase,
                                  boolean json, boolean html, boolean markdown) {
        ReportContent c = phase == null ? content : ReportWriters.onlyPhase(content, phase);
        try {
            Files.createDirectories(dir);
            return ReportWriters.writeAll(c, dir, templates, json, html, markdown);
        } catch (IOException e) {
            // A directory that is a file or refuses writing, a full disk: the user's to fix, in one line.
            throw new SteptraceException("cannot write the report of " + name + " into " + dir + ": "
                    + Messages.io(e), e);
        }
    }

    /**
     * Writes the timeline of some of the capture's steps, every rank on one time axis, as a Chrome trace
     * JSON file for ui.perfetto.dev or chrome://tracing (docs/timeline.md), named after its phase and
     * steps ({@code timeline-decode-36-38.json.gz}): what {@code steptrace timeline} writes.
     *
     * @param dir     the directory (created when missing)
     * @param options phase, steps, ranks and clock alignment ({@link TimelineOptions#slowest()}: the
     *                slowest step of decode and its neighbours, every rank, aligned)
     * @return what was written, with the clock offsets used
     * @throws SteptraceException when the capture has no such phase, step or rank, or writing fails
     */
    public TimelineResult writeTimeline(Path dir, TimelineOptions options) {
        return writeTimeline(dir, null, options);
    }

    /**
     * Writes the timeline under the given file name (see {@link #writeTimeline(Path, TimelineOptions)}).
     *
     * @param dir      the directory (created when missing)
     * @param fileName the file's name: gzip-compressed unless it ends in {@code .json}
     * @param options  phase, steps, ranks and clock alignment
     * @return what was written
     */
    public TimelineResult writeTimeline(Path dir, String fileName, TimelineOptions options) {
        open();
        try {
            return Timeline.write(analysis, options, dir, fileName, Steptrace.version());
        } catch (IllegalArgumentException e) {
            throw new SteptraceException(name() + ": " + e.getMessage(), e);
        } catch (IOException e) {
            // A directory that cannot be written, a full disk: the user's to fix, the message says which.
            throw new SteptraceException("cannot write the timeline of " + name() + " into " + dir + ": "
                    + e.getClass().getSimpleName() + " " + Messages.firstLine(e.getMessage()), e);
        } catch (SQLException e) {
            throw SteptraceException.internal("writing the timeline of " + name() + " failed: "
                    + Messages.firstLine(e.getMessage()), e);
        }
    }

    /**
     * The step time per phase projected under {@code changes} (docs/whatif.md): the capture replayed as a graph of
     * its dependencies, as captured and as changed, beside Amdahl's bound, with the critical paths before and after.
     *
     * @param changes what changes ({@link Changes#NONE}: the capture as it is)
     * @param phase   one phase, or null for every phase
     * @return per phase, in report order
     */
    public List<WhatIf.PhaseProjection> whatIf(Changes changes, String phase) {
        open();
        try {
            return WhatIf.of(analysis.kept(), analysis.stepSource().gpuAnchored(), HostSyncCalls.NAMES,
                    !changes.scaleKernels().isEmpty()).project(changes, phase);
        } catch (SQLException e) {
            throw SteptraceException.internal("projecting " + name() + " failed: " + Messages.firstLine(e.getMessage()), e);
        }
    }

    // ---- tables ----

    /**
     * One row per phase: steps per rank, the step time (docs/reports.md, "Step time"), its largest part and the
     * rank that sets the pace, and the per-step distributions of the report (means over ranks). Columns: phase,
     * steps, step_source, step_ms_mean, largest_part, pace_rank, kernel_ms_mean, kernel_ms_median, kernel_ms_p90,
     * span_ms_mean, busy_ms_mean, host_gap_ms_mean.
     *
     * @return the table
     */
    public Table summary() {
        StringColumn phase = StringColumn.create("phase");
        DoubleColumn steps = DoubleColumn.create("steps");
        StringColumn source = StringColumn.create("step_source");
        DoubleColumn stepMs = DoubleColumn.create("step_ms_mean");
        StringColumn largest = StringColumn.create("largest_part");
        IntColumn pace = IntColumn.create("pace_rank");
        DoubleColumn kMean = DoubleColumn.create("kernel_ms_mean");
        DoubleColumn kMedian = DoubleColumn.create("kernel_ms_median");
        DoubleColumn kP90 = DoubleColumn.create("kernel_ms_p90");
        DoubleColumn span = DoubleColumn.create("span_ms_mean");
        DoubleColumn busy = DoubleColumn.create("busy_ms_mean");
        DoubleColumn gap = DoubleColumn.create("host_gap_ms_mean");
        report().phases().forEach((id, p) -> {
            phase.append(id);
            steps.append(p.steps());
            source.append(p.stepSource());
            StepTime t = p.stepTime();
            append(stepMs, t == null ? null : t.msPerStep());
            largest.append(t == null || t.parts().isEmpty() ? null : t.parts().get(0).name());
            if (t == null || t.paceRank() == null) {
                pace.appendMissing();
            } else {
                pace.append(t.paceRank());
            }
            append(kMean, p.kernelMsPerStep().mean());
            append(kMedian, p.kernelMsPerStep().median());
            append(kP90, p.kernelMsPerStep().p90());
            append(span, p.spanMsPerStep().mean());
            append(busy, p.busyMsPerStep().mean());
            append(gap, p.hostGapMsPerStep().mean());
        });
        return TableReader.pretty(Table.create(name() + " summary", phase, steps, source, stepMs, largest, pace, kMean,
                kMedian, kP90, span, busy, gap));
    }

    /**
     * Where a phase's step goes, as report.json's {@code phases.PHASE.step_time.parts}: the parts of the step time
     * (GPU work by category, exposed communication, waiting for other ranks, GPU idle by cause), ms per step
     * (mean over ranks) and share of the step, largest first, beside the same of the rank that sets the pace.
     * Columns: part, label, ms_per_step, share_pct, pace_rank_ms_per_step.
     *
     * @param phase the phase
     * @return the table
     */
    public Table stepTime(String phase) {
        StepTime t = phase(phase).stepTime();
        StringColumn part = StringColumn.create("part");
        StringColumn label = StringColumn.create("label");
        DoubleColumn ms = DoubleColumn.create("ms_per_step");
        DoubleColumn share = DoubleColumn.create("share_pct");
        DoubleColumn pace = DoubleColumn.create("pace_rank_ms_per_step");
        if (t != null) {
            for (PartShare p : t.parts()) {
                part.append(p.name());
                label.append(p.label());
                ms.append(p.msPerStep());
                share.append(p.sharePct());
                pace.append(t.paceParts().stream().filter(x -> x.name().equals(p.name()))
                        .mapToDouble(PartShare::msPerStep).sum());
            }
        }
        return TableReader.pretty(Table.create(name() + " " + phase + " step time", part, label, ms, share, pace));
    }

    /**
     * The critical path of a phase's steps by part, as report.json's {@code step_time.critical_path}: each rank's
     * chain of CPU work, launches, kernels and waits that set its steps (docs/whatif.md), ms per step (mean over
     * ranks) and share of the step, largest first. Columns: part, label, ms_per_step, share_pct.
     *
     * @param phase the phase
     * @return the table
     */
    public Table criticalPath(String phase) {
        StepTime t = phase(phase).stepTime();
        StringColumn part = StringColumn.create("part");
        StringColumn label = StringColumn.create("label");
        DoubleColumn ms = DoubleColumn.create("ms_per_step");
        DoubleColumn share = DoubleColumn.create("share_pct");
        for (PartShare p : t == null ? List.<PartShare>of() : t.criticalPath()) {
            part.append(p.name());
            label.append(p.label());
            ms.append(p.msPerStep());
            share.append(p.sharePct());
        }
        return TableReader.pretty(Table.create(name() + " " + phase + " critical path", part, label, ms, share));
    }

    /**
     * Each rank's step time in a phase by part, as report.json's {@code ranks[].phases.PHASE.step_time}: a rank
     * that idles shows it here whatever the mean. Columns: rank, step_ms, part, ms_per_step, share_pct.
     *
     * @param phase the phase
     * @return the table
     */
    public Table rankStepTime(String phase) {
        phase(phase);
        IntColumn rank = IntColumn.create("rank");
        DoubleColumn step = DoubleColumn.create("step_ms");
        StringColumn part = StringColumn.create("part");
        DoubleColumn ms = DoubleColumn.create("ms_per_step");
        DoubleColumn share = DoubleColumn.create("share_pct");
        for (RankSummary r : report().ranks()) {
            RankPhase rp = r.phases().get(phase);
            if (rp == null || rp.stepTime() == null) {
                continue;
            }
            for (PartShare p : rp.stepTime().parts()) {
                rank.append(r.rank());
                append(step, rp.stepTime().msPerStep().mean());
                part.append(p.name());
                ms.append(p.msPerStep());
                share.append(p.sharePct());
            }
        }
        return TableReader.pretty(Table.create(name() + " " + phase + " step time per rank", rank, step, part, ms, share));
    }

    /**
     * The headline categories of a phase, as report.json's {@code phases.PHASE.categories}: kernel ms per
     * step (mean over ranks), share of kernel time, calls per step; largest first. Columns: category,
     * label, ms_per_step, share_pct, calls_per_step.
     *
     * @param phase {@code decode}, {@code prefill}, {@code mixed} or {@code unknown}
     * @return the table
     */
    public Table breakdown(String phase) {
        PhaseSummary p = phase(phase);
        Table t = categoryTable(name() + " " + phase + " breakdown");
        for (CategoryShare c : p.categories()) {
            appendCategory(t, c);
        }
        return t;
    }

    /**
     * The subcategories of a phase (norm, activation, rotary, ...): ms and calls per step (mean over
     * ranks), largest first within each category, categories largest first. Columns: category,
     * subcategory, ms_per_step, calls_per_step.
     *
     * @param phase the phase
     * @return the table
     */
    public Table subcategories(String phase) {
        PhaseSummary p = phase(phase);
        StringColumn cat = StringColumn.create("category");
        StringColumn sub = StringColumn.create("subcategory");
        DoubleColumn ms = DoubleColumn.create("ms_per_step");
        DoubleColumn calls = DoubleColumn.create("calls_per_step");
        for (CategoryShare c : p.categories()) {
            for (SubcategoryShare s : c.subcategories()) {
                cat.append(c.id());
                sub.append(s.id());
                ms.append(s.msPerStep());
                calls.append(s.callsPerStep());
            }
        }
        return TableReader.pretty(Table.create(name() + " " + phase + " subcategories", cat, sub, ms, calls));
    }

    /**
     * The categories of a phase rank by rank (each rank's mean over its steps), as report.json's
     * {@code ranks}. Columns: rank, category, label, ms_per_step, share_pct, calls_per_step.
     *
     * @param phase the phase
     * @return the table
     */
    public Table rankBreakdown(String phase) {
        phase(phase);
        IntColumn rank = IntColumn.create("rank");
        Table t = categoryTable(name() + " " + phase + " breakdown per rank");
        for (RankSummary r : report().ranks()) {
            RankPhase rp = r.phases().get(phase);
            if (rp == null) {
                continue;
            }
            for (CategoryShare c : rp.categories()) {
                rank.append(r.rank());
                appendCategory(t, c);
            }
        }
        return t.insertColumn(0, rank);
    }

    /**
     * Every kernel (and memcpy/memset) of a phase, computed as the report's top kernels: ms and calls
     * per step (mean over ranks), mean duration, and the taxonomy rule that classified it; largest
     * first. Columns: name, category, subcategory, rule, ms_per_step, calls_per_step, mean_us.
     *
     * @param phase the phase
     * @return the table
     */
    public Table kernels(String phase) {
        phase(phase);
        List<TopKernel> all;
        try {
            all = new ReportBuilder(analysis, roofline).kernels(phase);
        } catch (SQLException e) {
            throw SteptraceException.internal("reading the kernels of " + name() + " failed: "
                    + Messages.firstLine(e.getMessage()), e);
        }
        StringColumn name = StringColumn.create("name");
        StringColumn cat = StringColumn.create("category");
        StringColumn sub = StringColumn.create("subcategory");
        StringColumn rule = StringColumn.create("rule");
        DoubleColumn ms = DoubleColumn.create("ms_per_step");
        DoubleColumn calls = DoubleColumn.create("calls_per_step");
        DoubleColumn mean = DoubleColumn.create("mean_us");
        for (TopKernel k : all) {
            name.append(k.name());
            cat.append(k.category());
            sub.append(k.subcategory());
            rule.append(k.rule());
            ms.append(k.msPerStep());
            calls.append(k.callsPerStep());
            mean.append(k.meanUs());
        }
        return TableReader.pretty(Table.create(name() + " " + phase + " kernels", name, cat, sub, rule, ms, calls, mean));
    }

    /**
     * Every step of every rank, in order. Columns: rank, step (the file's step number), phase,
     * phase_index (position among the rank's steps of the phase), name (the step's annotation),
     * kernel_ms (sum of GPU operation durations), span_ms (first start to last end), busy_ms (union of
     * operations over streams), idle_ms (span - busy), host_gap_ms (GPU idle since the previous step;
     * missing for the first), calls.
     *
     * @return the table
     */
    public Table steps() {
        return steps(null);
    }

    /**
     * The steps of one phase (see {@link #steps()}).
     *
     * @param phase the phase
     * @return the table
     */
    public Table steps(String phase) {
        if (phase != null) {
            phase(phase);
        }
        return TableReader.internalQuery(connection(), name() + " steps", """
                SELECT m.rank, m.step, m.phase, m.phase_index, s.name, m.kernel_ns / 1e6 AS kernel_ms,
                       m.span_ns / 1e6 AS span_ms, m.busy_ns / 1e6 AS busy_ms, m.idle_ns / 1e6 AS idle_ms,
                       m.host_gap_ns / 1e6 AS host_gap_ms, m.calls
                FROM step_metrics m JOIN steps s USING (capture_id, analysis_key, file_id, step)
                WHERE m.capture_id = $1 AND m.analysis_key = $2 AND m.rank IS NOT NULL""" + (phase == null ? "" : " AND m.phase = $3") + """

                ORDER BY m.rank, m.gpu_start_ns NULLS LAST, m.step
                """, params(phase));
    }

    /**
     * Kernel time of every step by headline category, one row per (rank, step, category) that has time:
     * the long format {@link Charts#stackedBars} takes. Columns: rank, step, phase, phase_index,
     * category, ms, calls.
     *
     * @return the table
     */
    public Table stepCategories() {
        return stepCategories(null);
    }

    /**
     * Kernel time per step and category in one phase (see {@link #stepCategories()}).
     *
     * @param phase the phase
     * @return the table
     */
    public Table stepCategories(String phase) {
        if (phase != null) {
            phase(phase);
        }
        return TableReader.internalQuery(connection(), name() + " step categories", """
                SELECT rank, step, phase, phase_index, category, sum(ns) / 1e6 AS ms, sum(calls)::BIGINT AS calls
                FROM step_categories
                WHERE capture_id = $1 AND analysis_key = $2 AND rank IS NOT NULL""" + (phase == null ? "" : " AND phase = $3") + """

                GROUP BY rank, step, phase, phase_index, category
                ORDER BY rank, phase, phase_index, ms DESC
                """, params(phase));
    }

    /**
     * Every collective kernel instance (all-reduce, all-gather, ...) of every step and rank, with the
     * split of its time into transfer (the fastest rank's duration for the same instance) and wait (this
     * rank's time beyond it; missing when not every rank has the instance). Instances are matched across
     * ranks by (phase, phase_index, type, k). Columns: rank, phase, phase_index, step, type, k, dur_us,
     * transfer_us, wait_us, msg_bytes (when the trace records sizes), dtype, group_size, ts_ns.
     *
     * @return the table
     */
    public Table collectives() {
        return TableReader.internalQuery(connection(), name() + " collectives", """
                SELECT rank, phase, phase_index, step, type, k, dur_ns / 1e3 AS dur_us, transfer_ns / 1e3 AS transfer_us,
                       wait_ns / 1e3 AS wait_us, msg_bytes, dtype, group_size, ts_ns
                FROM collective_instances WHERE capture_id = $1 AND analysis_key = $2
                ORDER BY rank, phase, phase_index, type, k
                """, params(null));
    }

    /**
     * Collectives per phase and type, as report.json's {@code collectives}. Columns: phase, type,
     * calls_per_step, mean_us, msg_bytes_median, busbw_gbps, wait_ms_per_step, transfer_ms_per_step
     * (missing values where the trace cannot support them).
     *
     * @return the table
     */
    public Table collectiveSummary() {
        StringColumn phase = StringColumn.create("phase");
        StringColumn type = StringColumn.create("type");
        DoubleColumn calls = DoubleColumn.create("calls_per_step");
        DoubleColumn mean = DoubleColumn.create("mean_us");
        DoubleColumn bytes = DoubleColumn.create("msg_bytes_median");
        DoubleColumn busbw = DoubleColumn.create("busbw_gbps");
        DoubleColumn wait = DoubleColumn.create("wait_ms_per_step");
        DoubleColumn transfer = DoubleColumn.create("transfer_ms_per_step");
        for (Collective c : report().collectives()) {
            phase.append(c.phase());
            type.append(c.type());
            calls.append(c.callsPerStep());
            mean.append(c.meanUs());
            append(bytes, c.msgBytes() == null ? null : c.msgBytes().median());
            append(busbw, c.busbwGbps());
            append(wait, c.waitMsPerStep());
            append(transfer, c.transferMsPerStep());
        }
        return TableReader.pretty(Table.create(name() + " collectives", phase, type, calls, mean, bytes, busbw, wait, transfer));
    }

    /**
     * Runs SQL on the store: its analysis tables (select this capture's rows with {@link #where()}) and
     * its other tables and views ({@code kernels}, {@code names}, {@code files}, ...; docs/schema.md).
     *
     * @param sql one query
     * @return its result
     * @throws SteptraceException when DuckDB rejects the query
     */
    public Table sql(String sql) {
        return TableReader.query(connection(), sql);
    }

    /**
     * The store's connection, for JDBC use (the {@link Steptrace}'s: it stays open when the capture closes).
     *
     * @return the connection
     */
    public Connection connection() {
        open();
        return analysis.connection();
    }

    /**
     * The analysis underneath (for code inside steptrace: the diff, the decision memo).
     *
     * @return the analysis
     */
    public StoredAnalysis analysis() {
        open();
        return analysis;
    }

    /**
     * The capture's directory and files, as the analysis saw them.
     *
     * @return the scope
     */
    public CaptureScope scope() {
        return analysis.scope();
    }

    /** Releases a read-only store's analysis (a writable store keeps it); closing twice does nothing. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        owner.forget(this);
        if (readOnlyAnalysis != null) {
            try {
                readOnlyAnalysis.close();
            } catch (SQLException e) {
                throw SteptraceException.internal("closing the analysis of " + name() + " failed", e);
            }
        }
    }

    @Override
    public String toString() {
        return "Capture " + name() + " (" + path() + ", ranks " + ranks() + ", steps from " + stepSource() + ")";
    }

    // ---- helpers ----

    private synchronized void open() {
        if (closed) {
            throw new SteptraceException("the capture " + name() + " is closed");
        }
    }

    private PhaseSummary phase(String phase) {
        if (!Phase.IDS.contains(phase)) {
            throw new SteptraceException("no phase " + phase + ": one of " + String.join(", ", Phase.IDS));
        }
        PhaseSummary p = report().phases().get(phase);
        if (p == null) {
            throw new SteptraceException(name() + " has no " + phase + " steps (it has: "
                    + (report().phases().isEmpty() ? "none" : String.join(", ", report().phases().keySet())) + ")");
        }
        return p;
    }

    /** Parameters $1, $2 (the capture and its analysis key) and, with a phase, $3. */
    private Object[] params(String phase) {
        return phase == null ? new Object[] {id(), analysisKey()} : new Object[] {id(), analysisKey(), phase};
    }

    private static Table categoryTable(String name) {
        return TableReader.pretty(Table.create(name, StringColumn.create("category"), StringColumn.create("label"),
                DoubleColumn.create("ms_per_step"), DoubleColumn.create("share_pct"),
                DoubleColumn.create("calls_per_step")));
    }

    private static void appendCategory(Table t, CategoryShare c) {
        t.stringColumn("category").append(c.id());
        t.stringColumn("label").append(c.label());
        t.doubleColumn("ms_per_step").append(c.msPerStep());
        t.doubleColumn("share_pct").append(c.sharePct());
        t.doubleColumn("calls_per_step").append(c.callsPerStep());
    }

    static void append(DoubleColumn c, Double v) {
        if (v == null) {
            c.appendMissing();
        } else {
            c.append(v);
        }
    }
}
