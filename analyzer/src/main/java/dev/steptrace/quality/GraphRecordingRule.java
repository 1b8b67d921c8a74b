package dev.steptrace.quality;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.SQLException;
import java.util.List;

/**
 * CUDA graphs recorded during the captured steps (docs/warnings.md): graph capture calls inside a step mean a graph
 * was (re-)recorded while serving, typically for an input shape not seen before; query {@code graph-recording}.
 */
final class GraphRecordingRule {
    static final Rule RULE = new Rule("graph_recording", Severity.WARNING,
            "CUDA graphs are recorded during the captured steps.",
            "Recording a CUDA graph (cudaStreamBeginCapture ... cudaGraphInstantiate) runs the step eagerly under"
                    + " stream capture and instantiates the graph: that step is many times slower than a replay."
                    + " Inside a serving loop it means a graph was missing for what the step ran: a batch size or"
                    + " sequence length not seen before, a new compiled region after a recompile, or CUDA graph trees"
                    + " re-recording after their inputs or memory pool changed. Record every shape before serving"
                    + " (warm up each batch size the server uses, pad batches to the captured sizes), or leave the"
                    + " step out of the profile; the figures of a recording step are not those of its replays.",
            List.of(), "graph-recording");

    private GraphRecordingRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        CompileEvents events = new CompileEvents();
        ctx.evidence(RULE, events::add);
        events.phases().forEach((phase, p) -> {
            if (p.kind("graph_capture").isEmpty()) {
                return;
            }
            String regions = p.list("compiled_region", false);
            String trees = p.list("graph_record", false);
            out.add(ctx.warning(RULE, phase + ": CUDA graphs were recorded in " + p.steps.size() + " captured step(s) ("
                    + CompileEvents.steps(p.steps, 4) + ": " + p.list("graph_capture", false)
                    + (trees.isEmpty() ? "" : "; " + trees + " of torch.compile's CUDA graph trees")
                    + (regions.isEmpty() ? "" : ", in " + regions) + "): such a step runs eagerly under stream capture"
                    + " and is no replay. Record the graphs before serving: warm up every batch size and shape the"
                    + " server runs (pad batches to the captured sizes), so no step records one"));
        });
    }
}
