package dev.steptrace.decide;

import dev.steptrace.classify.Category;
import dev.steptrace.common.StepPart;
import dev.steptrace.report.BottleneckReport.CategoryShare;
import dev.steptrace.report.BottleneckReport.PhaseSummary;
import dev.steptrace.report.BottleneckReport;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Thresholds;
import dev.steptrace.whatif.Changes;
import dev.steptrace.whatif.WhatIf;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Turns a capture's bottleneck report and a scenario into a decision: the tax's share and its Amdahl
 * bound, each option's projected step and speedup, the options the constraints exclude, the
 * latency-vs-bandwidth regime of the collective, checks, and when to revisit. Nothing here knows a
 * scenario by name: every option is evaluated from its effect as the scenario states it.
 *
 * <p>Projections are of the step time (what shares are of; the kernel time per step where the analysis has no step
 * time): an option changes the categories it names and leaves the rest of the step as captured, or, stated as whatif
 * changes, is the captured steps replayed under them. Speedup is tokens per sequence per unit of step time, relative to
 * now ({@code tokens_per_step x step / projected step}).
 */
public final class DecisionEngine {
    private static final String NO_BATCH_IN_CAPTURE = "the capture does not say it: no vLLM or SGLang step annotation"
            + " names it, and no decode step has input shapes (CUDA-graph replays carry none)";

    private final BottleneckReport report;
    private final Scenario s;
    private final Scenario.Question q;
    private final PhaseSummary phase;
    private final String capSrc;
    private final double step;
    /** What {@link #step} is: the step time, or the kernel time where the analysis has no step time. */
    private final String stepLabel;
    private final Integer batch;
    private final String batchSource;
    private final String tf;
    /** The checks' thresholds (the regime's and the premise's are also the memo's). */
    private final Thresholds thresholds;
    /** By option id, the question's phase replayed under the option's whatif changes. */
    private final Map<String, WhatIf.PhaseProjection> replays;

    private DecisionEngine(BottleneckReport report, CaptureBatch captureBatch, Scenario scenario, Thresholds thresholds,
                           Map<String, WhatIf.PhaseProjection> replays) {
        this.report = report;
        this.replays = replays;
        this.thresholds = thresholds;
        this.s = scenario;
        this.q = scenario.question();
        this.phase = report.phases().get(q.phase());
        BottleneckReport.Capture cap = report.capture();
        if (phase == null || phase.kernelMsPerStep() == null || phase.kernelMsPerStep().mean() == null
                || phase.kernelMsPerStep().mean() <= 0) {
            throw new ScenarioException("capture " + cap.name() + " has no " + q.phase() + " steps with kernel time"
                    + " (phases in it: " + (report.phases().isEmpty() ? "none" : String.join(", ", report.phases().keySet()))
                    + "); " + scenario.source() + " asks about " + q.phase() + " (question.phase)");
        }
        // The step time where the analysis has it (docs/reports.md, "Step time"): a tax's share and a projected
        // speedup are of the whole step, idle time and waits included, not of its kernels alone.
        boolean stepTime = phase.stepTime() != null && phase.stepTime().msPerStep() > 0;
        this.step = stepTime ? phase.stepTime().msPerStep() : phase.kernelMsPerStep().mean();
        this.stepLabel = stepTime ? "step time" : "kernel ms per step";
        this.capSrc = "capture " + cap.name() + ", " + q.phase() + " (" + Fmt.count(phase.steps()) + " steps per rank, ranks "
                + Fmt.ranks(cap.ranks()) + ", mean over ranks)";
        if (captureBatch.batch() != null) {
            batch = captureBatch.batch();
            batchSource = "capture: " + captureBatch.evidence() + " (" + captureBatch.steps() + " of "
                    + captureBatch.total() + " " + q.phase() + " steps that say, all ranks)";
        } else if (q.batch() != null) {
            batch = q.batch();
            batchSource = "scenario question.batch (" + NO_BATCH_IN_CAPTURE + ")";
        } else {
            batch = null;
            batchSource = "unknown: " + NO_BATCH_IN_CAPTURE + ", and the scenario sets no question.batch";
        }
        this.tf = Fmt.speedup(q.minSpeedup());
    }

    /**
     * The memo of a capture's report for a scenario.
     *
     * @param thresholds the decision checks' thresholds (docs/scenarios.md, "Checks"): their defaults, or
     *                   {@code --warn-threshold}'s
     */
    public static Decision decide(BottleneckReport report, CaptureBatch batch, Scenario scenario, Decision.Bench bench,
                                  Thresholds thresholds, String toolVersion) {
        return decide(report, batch, scenario, bench, thresholds, Map.of(), toolVersion);
    }

    /**
     * The memo, with the projections of the options that state their effect as whatif changes.
     *
     * @param replays by option id, the question's phase of the capture replayed under the option's
     *                {@link Scenario.Effect#whatIf} ({@link #replaysOf}); an option without one is not evaluated
     */
    public static Decision decide(BottleneckReport report, CaptureBatch batch, Scenario scenario, Decision.Bench bench,
                                  Thresholds thresholds, Map<String, WhatIf.PhaseProjection> replays, String toolVersion) {
        return new DecisionEngine(report, batch, scenario, thresholds, replays).run(bench, toolVersion);
    }

    /** A projection of the capture: the question's phase under some changes (null when the capture lacks the phase). */
    @FunctionalInterface
    public interface Replayer {
        WhatIf.PhaseProjection project(Changes changes, String phase);
    }

    /** The replays {@link #decide} needs: one per option whose effect is stated as whatif changes. */
    public static Map<String, WhatIf.PhaseProjection> replaysOf(Scenario scenario, Replayer replayer) {
        Map<String, WhatIf.PhaseProjection> out = new LinkedHashMap<>();
        for (Scenario.Option o : scenario.options()) {
            if (o.effect().whatIf() != null) {
                WhatIf.PhaseProjection p = replayer.project(o.effect().whatIf(), scenario.question().phase());
                if (p != null) {
                    out.put(o.id(), p);
                }
            }
        }
        return out;
    }

    // ---- the capture's side ----

    /** Time and calls per step of a category or category/subcategory in the phase (0 when absent). */
    record Part(String spec, String label, double ms, double calls) {
        Double meanUs() {
            return calls > 0 ? ms * 1000 / calls : null;
        }
    }

    Part part(String spec) {
        if (Scenario.STEP_PARTS.contains(spec)) {
            BottleneckReport.StepTime t = phase.stepTime();
            for (BottleneckReport.PartShare ps : t == null ? List.<BottleneckReport.PartShare>of() : t.parts()) {
                if (ps.name().equals(spec)) {
                    return new Part(spec, StepPart.labelOf(spec), ps.msPerStep(), 0);
                }
            }
            return new Part(spec, StepPart.labelOf(spec), 0, 0);
        }
        int slash = spec.indexOf('/');
        String cat = slash < 0 ? spec : spec.substring(0, slash);
        String sub = slash < 0 ? null : spec.substring(slash + 1);
        String label = Category.ofId(cat).map(Category::label).orElse(cat) + (sub == null ? "" : " / " + sub);
        for (CategoryShare c : phase.categories()) {
            if (!c.id().equals(cat)) {
                continue;
            }
            if (sub == null) {
                return new Part(spec, label, c.msPerStep(), c.callsPerStep());
            }
            for (BottleneckReport.SubcategoryShare sc : c.subcategories() == null ? List.<BottleneckReport.SubcategoryShare>of() : c.subcategories()) {
                if (sc.id().equals(sub)) {
                    return new Part(spec, label, sc.msPerStep(), sc.callsPerStep());
                }
            }
        }
        return new Part(spec, label, 0, 0);
    }

    /** The collective type of a category spec ({@code allreduce}, {@code comm_other/all_to_all}), or null. */
    static String collectiveType(String spec) {
        int slash = spec.indexOf('/');
        String cat = slash < 0 ? spec : spec.substring(0, slash);
        if (cat.equals("allreduce")) {
            return "allreduce";
        }
        return cat.equals("comm_other") && slash >= 0 ? spec.substring(slash + 1) : null;
    }

    /** Latency or bandwidth of the collective behind a part ({@link CollectiveRegimeCheck#regime}). */
    CollectiveRegimeCheck.Regime regime(Part part) {
        return CollectiveRegimeCheck.regime(this, part, thresholds);
    }

    /** nccl-tests' bus-bandwidth factors. */
    static double busFactor(String type, int n) {
        if (n <= 1) {
            return 1;
        }
        return switch (type) {
            case "allreduce" -> 2.0 * (n - 1) / n;
            case "all_gather", "reduce_scatter", "all_to_all" -> (double) (n - 1) / n;
            default -> 1;
        };
    }

    // ---- options ----

    /** One option at one batch size. */
    private record Projection(Double stepMs, boolean bound, String derivation, String missing, Double perCallUs,
                              String perCallText, WhatIf.PhaseProjection replay) {}

    private Projection project(Scenario.Option o, Integer atBatch) {
        Scenario.Effect e = o.effect();
        String f = o.field() + ".effect";
        Part target = part(e.category() != null ? e.category() : q.tax());
        StringBuilder d = new StringBuilder(Fmt.ms(step) + " ms (" + stepLabel + ")");
        double delta = 0;
        boolean bound = false;
        String missing = null;
        Double perCall = null;
        String perCallText = null;
        WhatIf.PhaseProjection replay = null;
        if (e.whatIf() != null) {
            replay = replays.get(o.id());
            String changes = String.join(" ", e.whatIf().describe());
            if (replay == null) {
                missing = "the capture's steps were not replayed under " + f + ".whatif (" + changes + ")";
            } else {
                // The replay's change, on the step as the memo has it (the same step time, docs/whatif.md).
                delta += replay.projectedStepMs() - replay.stepMs();
                d.append(delta <= 0 ? " - " : " + ").append(Fmt.ms(Math.abs(delta))).append(" ms (the captured steps replayed with ")
                        .append(changes).append(", ").append(f).append(".whatif: ").append(Fmt.ms(replay.stepMs()))
                        .append(" -> ").append(Fmt.ms(replay.projectedStepMs())).append(" ms; Amdahl's bound ")
                        .append(Fmt.ms(replay.amdahlStepMs())).append(" ms)");
            }
        } else if (e.remove()) {
            delta -= target.ms();
            d.append(" - ").append(Fmt.ms(target.ms())).append(" ms (").append(target.spec()).append(", removed: ").append(f).append(".remove)");
        } else if (e.scale() != null) {
            delta -= target.ms() * (1 - e.scale());
            d.append(" - ").append(Fmt.ms(target.ms())).append(" ms (").append(target.spec()).append(") x (1 - ")
                    .append(Fmt.plain(e.scale())).append(") (").append(f).append(".scale)");
        } else if (e.scaleBytes() != null) {
            CollectiveRegimeCheck.Regime r = regime(target);
            if (r.wireUs() != null) {
                double wireMs = Math.min(target.ms(), target.calls() * r.wireUs() / 1000);
                delta -= wireMs * (1 - e.scaleBytes());
                d.append(" - ").append(Fmt.count(target.calls())).append(" calls x ").append(Fmt.us(r.wireUs()))
                        .append(" µs on the wire (message bytes / hardware.link_gbps) x (1 - ").append(Fmt.plain(e.scaleBytes()))
                        .append(") (").append(f).append(".scale_bytes; the rest of each call is latency and does not shrink)");
            } else {
                bound = true;
                delta -= target.ms() * (1 - e.scaleBytes());
                d.append(" - ").append(Fmt.ms(target.ms())).append(" ms (").append(target.spec()).append(") x (1 - ")
                        .append(Fmt.plain(e.scaleBytes())).append(") (").append(f)
                        .append(".scale_bytes; an upper bound: regime unknown, so all of the time is counted as moving bytes)");
            }
        } else if (e.replace() != null) {
            Scenario.Replace r = e.replace();
            double calls = r.callsPerStep() != null ? r.callsPerStep() : target.calls();
            String what = r.what() != null ? r.what() : "calls";
            if (target.calls() <= 0) {
                missing = "the capture has no " + target.spec() + " calls in " + q.phase() + " to replace";
            } else if (calls > target.calls() + 1e-6) {
                missing = f + ".replace.calls_per_step: " + Fmt.plain(calls) + " calls, but the capture has "
                        + Fmt.count(target.calls()) + " " + target.spec() + " calls per step";
            }
            double byCalls = r.byCallsPerStep() != null ? r.byCallsPerStep() : calls;
            if (r.perCallUs() != null) {
                perCall = r.perCallUs();
                perCallText = Fmt.plain(perCall) + " µs (" + f + ".replace.by.per_call_us)";
            } else {
                Scenario.Table t = (Scenario.Table) s.measured().get(r.perCallTable());
                if (atBatch == null) {
                    missing = missing != null ? missing : "the batch size is unknown (" + NO_BATCH_IN_CAPTURE
                            + "; no question.batch in the scenario), so measured." + t.name() + " cannot be read";
                } else if (t.at(atBatch) == null) {
                    missing = missing != null ? missing : "measured." + t.name() + " has no value at batch " + atBatch
                            + " (it has batch " + joinInts(t.byBatch().keySet()) + ")";
                } else {
                    perCall = t.at(atBatch);
                    perCallText = t.text(atBatch) + " µs (measured." + t.name() + " at batch " + atBatch
                            + (t.byBatch().get(atBatch)[0] != t.byBatch().get(atBatch)[1] ? ", the high end" : "") + ")";
                }
            }
            Double mean = target.meanUs();
            delta -= mean == null ? 0 : calls * mean / 1000;
            d.append(" - ").append(Fmt.plain(calls)).append(" ").append(target.spec()).append(" calls (")
                    .append(r.callsPerStep() != null ? f + ".replace.calls_per_step" : "all of them, capture").append(") x ")
                    .append(mean == null ? "n/a" : Fmt.us(mean)).append(" µs (capture mean per call)");
            if (perCall != null) {
                delta += byCalls * perCall / 1000;
                d.append(" + ").append(Fmt.plain(byCalls)).append(" ").append(what).append(" (")
                        .append(r.byCallsPerStep() != null ? f + ".replace.by.calls_per_step" : "one per replaced call")
                        .append(") x ").append(perCallText);
            } else {
                d.append(" + ").append(Fmt.plain(byCalls)).append(" ").append(what).append(" x (not measured)");
            }
        }
        if (e.addMs() != null) {
            delta += e.addMs();
            d.append(e.addMs() >= 0 ? " + " : " - ").append(Fmt.ms(Math.abs(e.addMs()))).append(" ms (").append(f).append(".add_ms)");
        }
        double projected = step + delta;
        if (e.stepScale() != null) {
            d.insert(0, "(").append(") x ").append(Fmt.plain(e.stepScale())).append(" (").append(f).append(".step_scale)");
            projected *= e.stepScale();
        }
        if (missing == null && projected <= 0) {
            missing = "the effect projects a step of " + Fmt.ms(projected) + " ms, which is not possible";
        }
        boolean projectable = missing == null;
        d.append(" = ").append(projectable ? Fmt.ms(projected) + " ms" : "n/a");
        if (e.tokensPerStep() != null) {
            d.append("; ").append(Fmt.plain(e.tokensPerStep())).append(" tokens per sequence per step (").append(f).append(".tokens_per_step)");
        } else if (e.tokensPerStepUnknown()) {
            d.append("; tokens per sequence per step not measured (").append(f).append(".tokens_per_step: null)");
        }
        return new Projection(projectable ? projected : null, bound, d.toString(), missing, perCall, perCallText, replay);
    }

    private double tokens(Scenario.Option o) {
        return o.effect().tokensPerStep() != null ? o.effect().tokensPerStep() : 1;
    }

    /** The per-call time of a replacement at which the option just reaches {@code target} speedup, or null. */
    private Double breakEvenPerCall(Scenario.Option o, double targetSpeedup) {
        Scenario.Effect e = o.effect();
        Scenario.Replace r = e.replace();
        Part p = part(e.category() != null ? e.category() : q.tax());
        if (r == null || p.meanUs() == null) {
            return null;
        }
        double calls = r.callsPerStep() != null ? r.callsPerStep() : p.calls();
        double byCalls = r.byCallsPerStep() != null ? r.byCallsPerStep() : calls;
        if (byCalls <= 0) {
            return null;
        }
        double needed = tokens(o) * step / targetSpeedup / (e.stepScale() != null ? e.stepScale() : 1);
        double rest = step - calls * p.meanUs() / 1000 + (e.addMs() != null ? e.addMs() : 0);
        double perCall = (needed - rest) * 1000 / byCalls;
        return perCall > 0 ? perCall : null;
    }

    private Decision.OptionResult evaluate(Scenario.Option o, List<String> reasons, List<Decision.Revisit> revisits) {
        Scenario.Effect e = o.effect();
        Projection p = project(o, batch);
        double tokens = tokens(o);
        // With tokens per step unknown there is no speedup to state, only the projected step.
        Double speedup = p.stepMs() != null && !e.tokensPerStepUnknown() ? tokens * step / p.stepMs() : null;
        boolean evaluable = p.missing() == null && p.stepMs() != null && !e.tokensPerStepUnknown();
        List<String> violates = new ArrayList<>(o.violates());
        for (String c : o.violates()) {
            reasons.add("violates " + c + ": " + s.constraints().get(c) + " (constraints." + c + ")");
        }
        // Batch sizes the option's measured table covers.
        List<Decision.BatchPoint> byBatch = new ArrayList<>();
        if (e.replace() != null && e.replace().perCallTable() != null) {
            Scenario.Table t = (Scenario.Table) s.measured().get(e.replace().perCallTable());
            for (int b : t.byBatch().keySet()) {
                Projection pb = project(o, b);
                if (pb.stepMs() == null) {
                    continue;
                }
                byBatch.add(new Decision.BatchPoint(b, pb.perCallUs(), t.text(b), pb.stepMs(), tokens * step / pb.stepMs(),
                        q.operatingBatches().contains(b), batch != null && b == batch,
                        "measured." + t.name() + " at batch " + b + "; the rest of the step as captured"
                                + (batch != null && b != batch ? " at batch " + batch : "")));
            }
            List<Decision.BatchPoint> slowerAt = byBatch.stream()
                    .filter(bp -> bp.operating() && bp.projectedSpeedup() < 1).toList();
            if (!slowerAt.isEmpty()) {
                violates.add("operating_batches");
                for (Decision.BatchPoint bp : slowerAt) {
                    if (bp.captured()) {
                        continue; // said once, as "slower than now"
                    }
                    reasons.add("slower at operating batch " + bp.batch() + ": " + Fmt.speedup(bp.projectedSpeedup())
                            + " (question.operating_batches; measured." + t.name() + ": " + bp.perCallText() + " µs per call)");
                }
            }
        }
        Decision.Verdict verdict;
        if (!evaluable) {
            verdict = Decision.Verdict.NOT_EVALUATED;
            reasons.add(0, p.missing() != null ? p.missing()
                    : "tokens per step is not measured (" + o.field() + ".effect.tokens_per_step: null)");
        } else if (speedup < 1) {
            verdict = Decision.Verdict.SLOWER;
            reasons.add(0, "projected " + Fmt.speedup(speedup) + (batch == null ? "" : " at batch " + batch) + ": slower than now");
        } else if (e.needsHardware() != null) {
            verdict = Decision.Verdict.NEEDS_HARDWARE;
        } else if (!violates.isEmpty()) {
            verdict = Decision.Verdict.VIOLATES_CONSTRAINTS;
        } else if (speedup < q.minSpeedup()) {
            verdict = Decision.Verdict.BELOW_THRESHOLD;
            reasons.add("projected " + Fmt.speedup(speedup) + ", below the " + tf + " threshold (question.min_speedup)");
        } else {
            verdict = Decision.Verdict.CANDIDATE;
        }
        if (e.needsHardware() != null) {
            reasons.add("needs hardware: " + e.needsHardware() + " (" + o.field() + ".effect.needs_hardware)");
        }
        if (p.bound() && speedup != null) {
            reasons.add("an upper bound: the collective's regime is unknown (message sizes not in the trace)");
        }
        if (p.replay() != null && p.replay().difference() != null) {
            reasons.add("replayed: " + Fmt.ms(p.replay().projectedStepMs()) + " ms, Amdahl's bound "
                    + Fmt.ms(p.replay().amdahlStepMs()) + " ms (" + p.replay().difference() + ")");
        }
        boolean admissible = evaluable && violates.isEmpty() && e.needsHardware() == null;
        revisits(o, p, speedup, evaluable, byBatch, revisits);
        return new Decision.OptionResult(o.id(), o.title(), o.field(),
                new Decision.Projected(p.stepMs(), speedup, speedup != null ? tokensPerSec(p.stepMs(), tokens) : null, tokens,
                        p.derivation(), p.bound(), o.evidence(),
                        p.replay() == null ? null : new Decision.Replay(String.join(" ", e.whatIf().describe()),
                                p.replay().stepMs(), p.replay().projectedStepMs(), p.replay().amdahlStepMs(),
                                p.replay().difference())),
                new Decision.Judgement(List.copyOf(violates), e.needsHardware(), admissible, verdict, null), byBatch);
    }

    private void revisits(Scenario.Option o, Projection p, Double speedup, boolean evaluable,
                          List<Decision.BatchPoint> byBatch, List<Decision.Revisit> out) {
        Scenario.Effect e = o.effect();
        String f = o.field();
        String at = speedup == null ? "" : " (projected " + Fmt.speedup(speedup) + (p.bound() ? ", an upper bound" : "") + ")";
        if (e.needsHardware() != null) {
            out.add(new Decision.Revisit(o.id(), o.title() + ": on hardware with " + e.needsHardware() + at,
                    f + ".effect.needs_hardware"));
        }
        if (evaluable && speedup >= q.minSpeedup()) {
            for (String c : o.violates()) {
                out.add(new Decision.Revisit(o.id(), o.title() + ": if the constraint " + c + ": " + s.constraints().get(c)
                        + " is relaxed" + at, "constraints." + c));
            }
        }
        if (!byBatch.isEmpty()) {
            String table = "measured." + e.replace().perCallTable();
            List<String> wins = byBatch.stream().filter(bp -> bp.projectedSpeedup() >= q.minSpeedup())
                    .map(bp -> bp.batch() + " (" + Fmt.speedup(bp.projectedSpeedup()) + ")").toList();
            Set<Integer> failing = new LinkedHashSet<>();
            byBatch.stream().filter(bp -> bp.operating() && bp.projectedSpeedup() < 1).forEach(bp -> failing.add(bp.batch()));
            byBatch.stream().filter(bp -> bp.captured() && bp.projectedSpeedup() < q.minSpeedup()).forEach(bp -> failing.add(bp.batch()));
            List<String> needs = new ArrayList<>();
            Double be = breakEvenPerCall(o, q.minSpeedup());
            Scenario.Table t = (Scenario.Table) s.measured().get(e.replace().perCallTable());
            if (be != null) {
                for (int b : failing) {
                    needs.add("the measured " + t.name() + " at batch " + b + " drops to " + Fmt.us(be) + " µs per call or less (measured "
                            + t.text(b) + ")");
                }
            }
            if (!wins.isEmpty() || !needs.isEmpty()) {
                StringBuilder w = new StringBuilder(o.title()).append(": ");
                if (!wins.isEmpty()) {
                    w.append("passes the ").append(tf).append(" threshold at batch ").append(String.join(", ", wins));
                    List<Integer> failingOperating = byBatch.stream().filter(bp -> bp.operating() && bp.projectedSpeedup() < 1)
                            .map(Decision.BatchPoint::batch).toList();
                    if (!failingOperating.isEmpty()) {
                        w.append(", so revisit if the service stops running at batch ").append(joinInts(failingOperating));
                    }
                    if (!needs.isEmpty()) {
                        w.append("; or ");
                    }
                } else {
                    w.append("revisit ");
                }
                if (!needs.isEmpty()) {
                    w.append("if ").append(String.join(", and ", needs)).append(" (it reaches ").append(tf).append(" there)");
                }
                out.add(new Decision.Revisit(o.id(), w.toString(), table + ", question.min_speedup"));
            }
        }
        if (e.tokensPerStepUnknown() && p.stepMs() != null && p.missing() == null) {
            double needed = q.minSpeedup() * p.stepMs() / step;
            out.add(new Decision.Revisit(o.id(), o.title() + ": when tokens per step is measured; it passes the " + tf
                    + " threshold at " + Fmt.value(needed) + " tokens per sequence per step or more"
                    + " (projected step " + Fmt.ms(p.stepMs()) + " ms)", f + ".effect.tokens_per_step, question.min_speedup"));
        } else if (p.missing() != null && byBatch.isEmpty()) {
            out.add(new Decision.Revisit(o.id(), o.title() + ": when it can be evaluated: " + p.missing(), f + ".effect"));
        }
        if (o.revisitWhen() != null) {
            out.add(new Decision.Revisit(o.id(), o.title() + ": " + o.revisitWhen(), f + ".revisit_when"));
        }
    }

    // ---- the whole decision ----

    private Decision run(Decision.Bench bench, String toolVersion) {
        BottleneckReport.Capture cap = report.capture();
        Part tax = part(q.tax());
        double share = 100 * tax.ms() / step;
        Double amdahl = step - tax.ms() > 1e-12 ? step / (step - tax.ms()) : null;
        CollectiveRegimeCheck.Regime regime = regime(tax);
        Double period = phase.spanMsPerStep() != null && phase.spanMsPerStep().mean() != null
                && phase.hostGapMsPerStep() != null && phase.hostGapMsPerStep().mean() != null
                ? phase.spanMsPerStep().mean() + phase.hostGapMsPerStep().mean() : null;

        Map<String, String> src = new LinkedHashMap<>();
        src.put("step_ms", capSrc + (stepLabel.equals("step time")
                ? ": step time (a step's start to the next one's, docs/reports.md \"Step time\")"
                : ": kernel ms per step (sum of kernel durations)"));
        src.put("step_period_ms", period == null ? "n/a: the capture has no span or host gap for " + q.phase()
                : capSrc + ": GPU span per step + host gap before it");
        src.put("tokens_per_sec_per_seq", period == null ? "n/a" : "1000 / step_period_ms (one token per sequence per step)");
        src.put("ms_per_step", capSrc + ": " + tax.spec() + (Scenario.STEP_PARTS.contains(tax.spec())
                ? " per step (a part of the step time)" : " kernel time per step"));
        src.put("share_pct", "ms_per_step / step_ms");
        src.put("amdahl_max_speedup", "1 / (1 - share_pct / 100): the step with " + tax.spec() + " at zero");
        src.put("calls_per_step", capSrc + ": " + tax.spec() + " kernels per step");
        src.put("mean_call_us", "ms_per_step / calls_per_step");
        src.put("regime", regime.evidence());
        src.put("batch", batchSource);
        Decision.Facts facts = new Decision.Facts(
                new Decision.Tax(q.taxCategory(), q.taxSubcategory(), tax.label(), q.phase()),
                new Decision.StepFacts(phase.steps(), cap.ranks().size(), step, period, period == null ? null : 1000 / period),
                new Decision.TaxShare(tax.ms(), share, amdahl, tax.calls(), tax.meanUs()),
                new Decision.Wire(regime.msgBytes(), regime.wireUs(), s.hardware().linkGbps(), regime.regime()),
                batch, batchSource, src);

        // Options.
        List<Decision.OptionResult> results = new ArrayList<>();
        List<List<String>> reasons = new ArrayList<>();
        List<Decision.Revisit> revisits = new ArrayList<>();
        for (Scenario.Option o : s.options()) {
            List<String> r = new ArrayList<>();
            results.add(evaluate(o, r, revisits));
            reasons.add(r);
        }
        HardwareMatchCheck.Fit fit = HardwareMatchCheck.fit(report, s);
        int best = -1;
        for (int i = 0; i < results.size() && fit.applies(); i++) {
            Decision.OptionResult r = results.get(i);
            if (r.judgement().admissible() && r.projected().projectedSpeedup() >= q.minSpeedup()
                    && (best < 0 || r.projected().projectedSpeedup() > results.get(best).projected().projectedSpeedup())) {
                best = i;
            }
        }
        List<Decision.OptionResult> finals = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            Decision.OptionResult r = results.get(i);
            Decision.Verdict verdict = r.judgement().verdict();
            List<String> why = reasons.get(i);
            if (!fit.applies()) {
                verdict = Decision.Verdict.NOT_APPLICABLE;
                why.add(0, "not weighed: the scenario's hardware is not the capture's (" + String.join("; ", fit.mismatches()) + ")");
            } else if (i == best) {
                verdict = Decision.Verdict.PURSUE;
                why.add(0, "projected " + Fmt.speedup(r.projected().projectedSpeedup()) + ", the best admissible option, above the " + tf
                        + " threshold (question.min_speedup)");
            } else if (verdict == Decision.Verdict.CANDIDATE) {
                verdict = Decision.Verdict.OUTRANKED;
                why.add(0, "projected " + Fmt.speedup(r.projected().projectedSpeedup()) + ", above the threshold but below "
                        + results.get(best).id());
            }
            finals.add(r.judged(verdict, String.join("; ", why)));
        }
        Decision.Choice decision = !fit.applies() ? Decision.Choice.NOT_APPLICABLE
                : best >= 0 ? Decision.Choice.PURSUE : Decision.Choice.ACCEPT;
        String chosen = best >= 0 ? finals.get(best).id() : null;
        if (chosen != null) {
            revisits.removeIf(r -> r.option().equals(chosen));
        }

        List<BottleneckReport.Warning> warnings = new ArrayList<>();
        List<Decision.Check> checks = checks(tax, share, amdahl, regime, period, bench, fit, warnings);
        warnings.addAll(report.warnings());
        String premise = PremiseCheck.contradiction(this, tax, share, thresholds);
        String summary = !fit.applies() ? notApplicable(fit, tax, share)
                : summary(decision, best >= 0 ? finals.get(best) : null, tax, share, amdahl, finals);
        if (premise != null) {
            int firstSentence = summary.indexOf(". ") + 1;
            summary = summary.substring(0, firstSentence) + " " + premise + summary.substring(firstSentence);
        }
        return new Decision(Decision.SCHEMA, new BottleneckReport.Tool("steptrace", toolVersion),
                new Decision.ScenarioRef(s.id(), s.title(), s.source()),
                new Decision.CaptureRef(cap.path(), cap.name(), cap.devices(), cap.worldSize(), cap.ranks(), phase.steps(),
                        phase.stepSource()),
                new Decision.QuestionOut(q.text(), q.phase(), q.tax(), tax.label(), q.minSpeedup(), q.operatingBatches()),
                decision, chosen, summary, facts, finals, revisits, checks, bench, warnings);
    }

    private Double tokensPerSec(double projectedStep, double tokens) {
        Double span = phase.spanMsPerStep() == null ? null : phase.spanMsPerStep().mean();
        Double gap = phase.hostGapMsPerStep() == null ? null : phase.hostGapMsPerStep().mean();
        if (span == null || gap == null) {
            return null;
        }
        double period = span + gap;
        // The time outside kernels (gaps, host) stays as captured; kernel time changes as projected.
        double projectedPeriod = period >= step ? period - step + projectedStep : period * projectedStep / step;
        return tokens * 1000 / projectedPeriod;
    }

    private String summary(Decision.Choice decision, Decision.OptionResult chosen, Part tax, double share, Double amdahl,
                           List<Decision.OptionResult> options) {
        String taxText = String.format(Locale.ROOT, "%s is %s of %s %s (%s of %s ms per step; at zero the step would be at most %s faster)",
                tax.label(), Fmt.pct(share), q.phase(), stepLabel, Fmt.ms(tax.ms()), Fmt.ms(step),
                amdahl == null ? "n/a" : Fmt.speedup(amdahl));
        if (chosen != null) {
            return String.format(Locale.ROOT, "Pursue %s: projected %s (%s instead of %s ms per step), above the %s threshold and "
                            + "within every constraint. %s.", chosen.title(), Fmt.speedup(chosen.projected().projectedSpeedup()),
                    Fmt.ms(chosen.projected().projectedStepMs()), Fmt.ms(step), tf, capitalize(taxText));
        }
        List<String> why = new ArrayList<>();
        for (Decision.OptionResult o : options) {
            why.add(o.title() + ": " + switch (o.judgement().verdict()) {
                case SLOWER -> "slower (" + Fmt.speedup(o.projected().projectedSpeedup()) + ")";
                case NEEDS_HARDWARE -> "needs new hardware";
                case VIOLATES_CONSTRAINTS -> violations(o);
                case BELOW_THRESHOLD -> "below the threshold (" + Fmt.speedup(o.projected().projectedSpeedup()) + ")";
                default -> "not evaluated";
            });
        }
        return "Accept the " + tax.spec() + " tax. " + capitalize(taxText) + ", but no admissible option reaches the " + tf
                + " threshold" + (why.isEmpty() ? " (the scenario lists none)" : ": " + String.join("; ", why)) + ".";
    }

    /** "violates precision", "slower at operating batch 16", or both. */
    private static String violations(Decision.OptionResult o) {
        List<String> parts = new ArrayList<>();
        List<String> declared = o.judgement().violates().stream().filter(v -> !v.equals("operating_batches")).toList();
        if (!declared.isEmpty()) {
            parts.add("violates " + String.join(", ", declared));
        }
        if (o.judgement().violates().contains("operating_batches")) {
            parts.add("slower at operating batch " + o.byBatch().stream().filter(b -> b.operating() && b.projectedSpeedup() < 1)
                    .map(b -> b.batch() + " (" + Fmt.speedup(b.projectedSpeedup()) + ")").reduce((a, b) -> a + ", " + b).orElse("?"));
        }
        return String.join(" and ", parts);
    }

    private static String capitalize(String t) {
        return t.isEmpty() ? t : Character.toUpperCase(t.charAt(0)) + t.substring(1);
    }

    // ---- checks ----

    /** Runs the registered checks ({@link DecisionChecks}) in order; the warnings they raise go to {@code warnings}. */
    private List<Decision.Check> checks(Part tax, double share, Double amdahl, CollectiveRegimeCheck.Regime regime,
                                        Double period, Decision.Bench bench, HardwareMatchCheck.Fit fit,
                                        List<BottleneckReport.Warning> warnings) {
        DecisionCheck.Context ctx = new DecisionCheck.Context(this, tax, share, amdahl, regime, period, bench, fit,
                thresholds);
        List<Decision.Check> out = new ArrayList<>();
        for (DecisionCheck check : DecisionChecks.ALL) {
            check.check().run(ctx, out, warnings);
        }
        return out;
    }

    // What the checks read of the memo.

    BottleneckReport report() {
        return report;
    }

    Scenario scenario() {
        return s;
    }

    Scenario.Question question() {
        return q;
    }

    PhaseSummary phase() {
        return phase;
    }

    /** The step time in the question's phase, or its kernel time where there is none (what shares and speedups are of). */
    double stepMs() {
        return step;
    }

    /** Where the capture's numbers come from: the capture, phase, steps and ranks. */
    String captureSource() {
        return capSrc;
    }

    /** What shares are of: {@code step time}, or {@code kernel ms per step} where the analysis has no step time. */
    String stepLabel() {
        return stepLabel;
    }

    /** {@code question.min_speedup} as the memo writes it. */
    String thresholdText() {
        return tf;
    }

    Integer batch() {
        return batch;
    }

    String batchSource() {
        return batchSource;
    }

    private String notApplicable(HardwareMatchCheck.Fit fit, Part tax, double share) {
        return "Not applicable: the scenario's hardware is not the capture's (" + String.join("; ", fit.mismatches())
                + "). The capture's " + tax.spec() + " share (" + Fmt.pct(share) + " of " + q.phase()
                + " " + stepLabel + ") describes its own hardware, so no option is weighed; capture the scenario's hardware, or"
                + " set hardware.capture_stands_in: true if this capture stands in for it.";
    }

    private static String joinInts(java.util.Collection<Integer> xs) {
        return xs.stream().map(String::valueOf).reduce((a, b) -> a + ", " + b).orElse("");
    }
}
