package dev.steptrace.decide;

import dev.steptrace.report.Fmt;
import dev.steptrace.report.ReportView.ChartRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the memo templates render: the {@link Decision} with every number formatted ({@link Fmt};
 * {@code n/a} for missing values) and its source beside it, in reading order.
 */
public record DecisionView(String title, String toolName, String toolVersion, String schema, String captureName,
                           String scenarioName, String decision, String decisionLabel, String option, String summary,
                           String question, List<Row> questionRows, List<FactRow> facts, String nowStep,
                           String nowTokensPerSec, String nowSource, List<OptionRow> options,
                           List<BatchTable> batchTables, List<CheckRow> checks, List<RevisitRow> revisits,
                           List<Row> hardware, List<Row> constraints, List<MeasuredRow> measured, BenchView bench,
                           List<WarningRow> warnings, List<Row> provenance, ChartRef optionsChart, ChartRef benchChart,
                           String chartsNote) {

    public record Row(String label, String value, boolean code) {}

    public record FactRow(String id, String label, String value, String source) {}

    /** An option: what it would give, how the constraints judge it, where its numbers come from. */
    public record OptionRow(String id, String title, String field, Projection projection, Judgement judgement,
                            Basis basis, boolean chosen) {}

    /**
     * @param step   the projected step time, ms
     * @param amdahl Amdahl's bound of an option stated as whatif changes, ms per step ({@code n/a} for the others)
     */
    public record Projection(String step, String amdahl, String speedup, String tokensPerSec) {}

    /** {@code admissible}: yes or no, as printed; {@code violates}: the constraints it breaks, or none. */
    public record Judgement(String admissible, boolean isAdmissible, String verdict, String verdictLabel,
                            String violates, String reason) {}

    /** How the projection was worked out, and the evidence it rests on. */
    public record Basis(String derivation, String evidence) {}

    public record BatchTable(String optionId, String title, List<BatchRow> rows) {}

    public record BatchRow(String batch, String perCall, String step, String speedup, String note, boolean operating,
                           String source) {}

    public record CheckRow(String id, String title, String status, String value, String threshold, String summary,
                           String evidence) {}

    public record RevisitRow(String option, String when, String source) {}

    public record MeasuredRow(String name, String what, String values, String source) {}

    public record BenchView(List<BenchRow> rows, String plateau, String evidence, String files) {}

    public record BenchRow(String file, String concurrency, String requestThroughput, String outputThroughput,
                           String totalThroughput, String meanTtft, String meanTpot, String medianItl, boolean plateau) {}

    public record WarningRow(String code, String message) {}

    public static DecisionView of(Decision d, Scenario s, ChartRef optionsChart, ChartRef benchChart, String chartsNote) {
        Decision.Facts f = d.facts();
        Map<String, String> src = f.sources();
        String taxName = d.question().tax();
        List<Row> question = new ArrayList<>();
        question.add(new Row("Tax", d.question().taxLabel() + " (" + taxName + ")", false));
        question.add(new Row("Phase", f.tax().phase(), false));
        question.add(new Row("Threshold", Fmt.speedup(d.question().minSpeedup()) + " (question.min_speedup)", false));
        question.add(new Row("Operating batch sizes", d.question().operatingBatches().isEmpty() ? "not stated"
                : d.question().operatingBatches().stream().map(String::valueOf).reduce((a, b) -> a + ", " + b).orElse("")
                + " (question.operating_batches)", false));

        List<FactRow> facts = new ArrayList<>();
        facts.add(new FactRow("step_ms", "Step time", Fmt.ms(f.step().stepMs()) + " ms", src.get("step_ms")));
        facts.add(new FactRow("step_period_ms", "Step period (span + host gap)", f.step().stepPeriodMs() == null ? Fmt.NA
                : Fmt.ms(f.step().stepPeriodMs()) + " ms", src.get("step_period_ms")));
        facts.add(new FactRow("tokens_per_sec_per_seq", "Tokens/s per sequence", f.step().tokensPerSecPerSeq() == null ? Fmt.NA
                : Fmt.tokensPerSec(f.step().tokensPerSecPerSeq()), src.get("tokens_per_sec_per_seq")));
        facts.add(new FactRow("ms_per_step", f.tax().label() + " per step", Fmt.ms(f.share().msPerStep()) + " ms", src.get("ms_per_step")));
        facts.add(new FactRow("share_pct", "Share of the step", Fmt.pct(f.share().sharePct()), src.get("share_pct")));
        facts.add(new FactRow("amdahl_max_speedup", "Amdahl bound (tax at zero)",
                f.share().amdahlMaxSpeedup() == null ? Fmt.NA : Fmt.speedup(f.share().amdahlMaxSpeedup()), src.get("amdahl_max_speedup")));
        facts.add(new FactRow("calls_per_step", "Calls per step", Fmt.count(f.share().callsPerStep()), src.get("calls_per_step")));
        facts.add(new FactRow("mean_call_us", "Time per call", f.share().meanCallUs() == null ? Fmt.NA : Fmt.us(f.share().meanCallUs()) + " µs",
                src.get("mean_call_us")));
        facts.add(new FactRow("regime", "Latency or bandwidth", f.wire().regime(), src.get("regime")));
        facts.add(new FactRow("batch", "Batch size", f.batch() == null ? Fmt.NA : f.batch().toString(), src.get("batch")));

        List<OptionRow> options = new ArrayList<>();
        List<BatchTable> batchTables = new ArrayList<>();
        for (Decision.OptionResult o : d.options()) {
            Decision.Projected p = o.projected();
            Decision.Judgement j = o.judgement();
            options.add(new OptionRow(o.id(), o.title(), o.field(),
                    new Projection(p.projectedStepMs() == null ? Fmt.NA : Fmt.ms(p.projectedStepMs()),
                            p.replay() == null ? Fmt.NA : Fmt.ms(p.replay().amdahlStepMs()),
                            p.projectedSpeedup() == null ? Fmt.NA : (p.bound() ? "≤ " : "") + Fmt.speedup(p.projectedSpeedup()),
                            p.projectedTokensPerSec() == null || p.projectedSpeedup() == null ? Fmt.NA
                                    : Fmt.tokensPerSec(p.projectedTokensPerSec())),
                    new Judgement(j.admissible() ? "yes" : "no", j.admissible(), j.verdict().id(), j.verdict().label(),
                            j.violates().isEmpty() ? "none" : String.join(", ", j.violates()), Fmt.text(j.reason())),
                    new Basis(p.derivation(), Fmt.text(p.evidence())), o.id().equals(d.option())));
            if (!o.byBatch().isEmpty()) {
                List<BatchRow> rows = new ArrayList<>();
                for (Decision.BatchPoint b : o.byBatch()) {
                    List<String> notes = new ArrayList<>();
                    if (b.captured()) {
                        notes.add("the capture's batch");
                    }
                    if (b.operating()) {
                        notes.add("operating batch");
                    }
                    rows.add(new BatchRow(Integer.toString(b.batch()), b.perCallText() + " µs", Fmt.ms(b.projectedStepMs()),
                            Fmt.speedup(b.projectedSpeedup()), String.join(", ", notes), b.operating(), b.source()));
                }
                batchTables.add(new BatchTable(o.id(), o.title(), rows));
            }
        }
        List<CheckRow> checks = d.checks().stream().map(c -> new CheckRow(c.id(), c.title(), c.status().label(),
                Fmt.value(c.value()), c.threshold() == null ? "" : Fmt.value(c.threshold()),
                c.summary(), c.evidence())).toList();
        List<RevisitRow> revisits = d.revisitWhen().stream().map(r -> new RevisitRow(r.option(), r.when(), r.source())).toList();

        List<Row> hardware = new ArrayList<>();
        Scenario.Hardware h = s.hardware();
        hardware.add(new Row("GPU (hardware.gpu)", Fmt.text(h.gpu()), false));
        hardware.add(new Row("GPUs (hardware.gpus)", h.gpus() == null ? Fmt.NA : h.gpus().toString(), false));
        hardware.add(new Row("Interconnect (hardware.interconnect)", Fmt.text(h.interconnect()), false));
        hardware.add(new Row("Link bandwidth (hardware.link_gbps)", h.linkGbps() == null ? Fmt.NA : Fmt.plain(h.linkGbps()) + " GB/s", false));
        hardware.add(new Row("Per-collective latency (hardware.collective_latency_us)",
                h.collectiveLatencyUs() == null ? Fmt.NA : Fmt.plain(h.collectiveLatencyUs()) + " µs", false));
        List<Row> constraints = s.constraints().entrySet().stream()
                .map(e -> new Row("constraints." + e.getKey(), e.getValue(), true)).toList();
        List<MeasuredRow> measured = new ArrayList<>();
        for (Scenario.Measured m : s.measured().values()) {
            if (m instanceof Scenario.Table t) {
                List<String> vals = new ArrayList<>();
                t.byBatch().keySet().forEach(b -> vals.add("batch " + b + ": " + t.text(b) + (t.unit() == null ? "" : " " + t.unit())));
                measured.add(new MeasuredRow(t.name(), Fmt.text(t.description()), String.join("; ", vals), Fmt.text(t.source())));
            } else if (m instanceof Scenario.Burst b) {
                measured.add(new MeasuredRow(b.name(), Fmt.text(b.description()), b.calls() + " calls"
                        + (b.messageBytes() == null ? "" : " of " + Fmt.bytes(b.messageBytes())) + " in " + Fmt.plain(b.totalMs())
                        + " ms (" + Fmt.us(b.perCallUs()) + " µs per call)", Fmt.text(b.source())));
            }
        }

        BenchView bench = null;
        if (d.bench() != null) {
            List<BenchRow> rows = new ArrayList<>();
            for (Decision.BenchRun r : d.bench().runs()) {
                rows.add(new BenchRow(r.file(), r.maxConcurrency() == null ? Fmt.NA : r.maxConcurrency().toString(),
                        Fmt.decimals(r.requestThroughput(), 2), Fmt.decimals(r.outputThroughput(), 1), Fmt.decimals(r.totalTokenThroughput(), 1),
                        Fmt.ms(r.meanTtftMs()), Fmt.ms(r.meanTpotMs()), Fmt.ms(r.medianItlMs()),
                        r.maxConcurrency() != null && r.maxConcurrency().equals(d.bench().plateauConcurrency())));
            }
            bench = new BenchView(rows, d.bench().plateauConcurrency() == null ? "none found" : "concurrency " + d.bench().plateauConcurrency(),
                    Fmt.text(d.bench().plateauEvidence()), String.join(", ", d.bench().files()));
        }
        List<WarningRow> warnings = d.warnings().stream().map(w -> new WarningRow(w.code(), w.message())).toList();

        List<Row> provenance = new ArrayList<>();
        provenance.add(new Row("Capture", d.capture().path(), true));
        provenance.add(new Row("Devices", d.capture().devices() == null || d.capture().devices().isEmpty() ? Fmt.NA
                : String.join(", ", d.capture().devices()), false));
        provenance.add(new Row("Ranks", Fmt.ranks(d.capture().ranks()) + (d.capture().worldSize() == null ? ""
                : " (world size " + d.capture().worldSize() + ")"), false));
        provenance.add(new Row("Steps", Fmt.count(d.capture().steps()) + " " + f.tax().phase() + " steps per rank, from "
                + d.capture().stepSource(), false));
        provenance.add(new Row("Scenario", d.scenario().source() + (d.scenario().id() == null ? "" : " (id " + d.scenario().id() + ")"), true));
        provenance.add(new Row("Tool", d.tool().name() + " " + d.tool().version() + ", decision schema " + d.schema(), false));

        String decisionLabel = switch (d.decision()) {
            case PURSUE -> "Pursue: " + d.options().stream().filter(o -> o.id().equals(d.option()))
                    .map(Decision.OptionResult::title).findFirst().orElse(d.option());
            case NOT_APPLICABLE -> "Not applicable: the scenario's hardware is not the capture's";
            case ACCEPT -> "Accept the " + taxName + " tax";
        };
        String scenarioName = d.scenario().title() != null ? d.scenario().title() : Fmt.text(d.scenario().id());
        return new DecisionView("steptrace decision: " + d.capture().name(), d.tool().name(), d.tool().version(), d.schema(),
                d.capture().name(), scenarioName, d.decision().id(), decisionLabel, d.option() == null ? "" : d.option(), d.summary(),
                Fmt.text(d.question().text()), question, facts, Fmt.ms(f.step().stepMs()),
                Fmt.tokensPerSec(f.step().tokensPerSecPerSeq()),
                src.get("step_ms"), options, batchTables, checks, revisits, hardware, constraints,
                measured, bench, warnings, provenance, optionsChart, benchChart, chartsNote == null ? "" : chartsNote);
    }

}
