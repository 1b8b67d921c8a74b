package dev.steptrace.analysis;

import dev.steptrace.common.BoundedRegex;
import dev.steptrace.common.Phase;
import dev.steptrace.common.StepSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds a capture's steps and their phases (docs/architecture.md, "Report, step by step") into the connection's temp
 * table {@code t_steps(file_id, step, name, phase, cpu_start, cpu_end, step_number)}: one row per
 * step per file, {@code step} counting from 0 in time order within the file. The SQL is stages 10-15
 * ({@code analysis/1N-*.sql}); this class chooses the step source, in priority order, and runs them.
 *
 * <p>Annotation names are matched in Java on the distinct names (a handful), so {@code --step-regex}
 * and the built-in patterns share Java regex semantics: the names that are steps go to
 * {@code t_annotation_steps}, those that hint at a phase to {@code t_phase_hints}.
 */
final class StepDetector {
    /** Annotation names that tell a step's phase when vLLM's counts are absent. */
    private static final Pattern PREFILL_HINT = Pattern.compile("prefill|extend", Pattern.CASE_INSENSITIVE);
    private static final Pattern DECODE_HINT = Pattern.compile("decode", Pattern.CASE_INSENSITIVE);
    private static final Pattern MIXED_HINT = Pattern.compile("mixed", Pattern.CASE_INSENSITIVE);
    /** NVTX domains of libraries, whose ranges mark library calls, never steps. */
    static final List<String> LIBRARY_NVTX_DOMAINS = List.of("NCCL", "cuBLAS", "cuBLASLt", "cuDNN", "CUTLASS", "NVSHMEM");
    /** NVTX step ranges hold at least this share of the GPU time their thread launched inside its top-level ranges. */
    static final double NVTX_STEP_SHARE = 0.9;

    private StepDetector() {}

    /**
     * Builds {@code t_annot}, {@code t_steps} and {@code t_step_notes(file_id, code, message)} (why a step source that
     * exists in the capture was not used, for the capture-quality warnings); returns the source used.
     */
    static StepSource detect(Connection c, Pattern userRegex) throws SQLException {
        SqlStage.run(c, "10-step-annotations");
        List<String> names = SqlStage.strings(c, "annotation-names");
        StepSource source = null;
        if (userRegex != null) {
            source = matchNames(c, names, userRegex, StepSource.USER_REGEX) ? StepSource.USER_REGEX : null;
        }
        if (source == null) {
            // SGLang writes its step[...] annotations and, in some versions, vLLM's execute_..._generation_...
            // form around the same work: a capture with SGLang's is SGLang's, whichever form marks its steps.
            boolean vllm = matchNames(c, names, StepSource.VLLM_STEP, StepSource.VLLM_ANNOTATION);
            boolean sglang = matchNames(c, names, StepSource.SGLANG_STEP, StepSource.SGLANG_ANNOTATION);
            source = sglang ? StepSource.SGLANG_ANNOTATION : vllm ? StepSource.VLLM_ANNOTATION : null;
        }
        if (source == null && matchNames(c, names, StepSource.PROFILER_STEP_NAME, StepSource.PROFILER_STEP)) {
            source = StepSource.PROFILER_STEP;
        }
        if (source != null) {
            SqlStage.run(c, "11-steps-from-annotations");
        } else if (nvtxSteps(c)) {
            source = StepSource.NVTX;
        } else {
            SqlStage.load("13-steps-from-graph-launches").run(c, Map.of("graph_launches", StepSource.GRAPH_LAUNCHES));
            if (SqlStage.rows(c, "t_steps") > 0) {
                source = StepSource.GRAPH_LAUNCH;
            } else {
                source = StepSource.GAP;
                SqlStage.run(c, "14-steps-from-gaps");
            }
        }
        phaseHints(c, names);
        SqlStage.run(c, "15-step-phases");
        if (source != StepSource.GAP) {
            SqlStage.run(c, "16-steps-past-partial-ends");
        }
        return source;
    }

    /** Records the names that are steps in {@code t_annotation_steps}; returns whether any matched. */
    private static boolean matchNames(Connection c, List<String> names, Pattern p, StepSource source)
            throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        for (String name : names) {
            Matcher m = BoundedRegex.matcher(p, name);
            try {
                if (!m.find()) {
                    continue;
                }
            } catch (BoundedRegex.TooSlow e) {
                throw source == StepSource.USER_REGEX ? e.in("--step-regex") : e;
            }
            rows.add(Arrays.asList(name, source == StepSource.VLLM_ANNOTATION ? vllmPhase(m) : null,
                    source == StepSource.PROFILER_STEP ? Long.parseLong(m.group(1)) : null));
        }
        SqlStage.fill(c, "t_annotation_steps", rows);
        return !rows.isEmpty();
    }

    /** context > 0 and generation 0 is prefill, both > 0 mixed, context 0 decode. */
    static String vllmPhase(Matcher m) {
        long context = Long.parseLong(m.group(1));
        long generation = Long.parseLong(m.group(3));
        if (context > 0) {
            return (generation > 0 ? Phase.MIXED : Phase.PREFILL).id();
        }
        return Phase.DECODE.id();
    }

    /**
     * The NVTX step source (stage 12), tried only where the capture has NVTX push/pop ranges: true when
     * every file's ranges are steps and there are some; otherwise stage 12's notes say why, and the next
     * source replaces {@code t_steps}.
     */
    private static boolean nvtxSteps(Connection c) throws SQLException {
        if (SqlStage.count(c, "nvtx-ranges", Map.of()) == 0) {
            return false;
        }
        SqlStage.load("12-steps-from-nvtx").run(c, Map.of("nvtx_step_share", NVTX_STEP_SHARE,
                "library_nvtx_domains", LIBRARY_NVTX_DOMAINS));
        // Stage 12 notes, under the id of the rule that reports them, why a file's ranges are not steps.
        return SqlStage.count(c, "step-notes", Map.of("code", "nvtx_ranges_not_steps")) == 0
                && SqlStage.rows(c, "t_steps") > 0;
    }

    /** The annotation names that hint at a phase, for stage 15. */
    private static void phaseHints(Connection c, List<String> annotationNames) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        for (String name : annotationNames) {
            Phase hint = MIXED_HINT.matcher(name).find() ? Phase.MIXED
                    : PREFILL_HINT.matcher(name).find() ? (DECODE_HINT.matcher(name).find() ? Phase.MIXED : Phase.PREFILL)
                    : DECODE_HINT.matcher(name).find() ? Phase.DECODE : null;
            if (hint != null) {
                rows.add(List.of(name, hint.id()));
            }
        }
        SqlStage.fill(c, "t_phase_hints", rows);
    }
}
