package dev.steptrace.whatif;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.api.Capture;
import dev.steptrace.api.Steptrace;
import dev.steptrace.cli.Main;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Projections against the generator's truth (docs/synth.md): a synthetic capture projected under a change, and
 * the same capture generated with that change, whose step time EXPECTED.json gives. Within 2% each: a GPU-bound
 * step shortened by its kernels, a host-bound one that does not shorten beyond the time the CPU needs, a
 * straggler removed.
 */
class WhatIfOnSynthTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void aGpuBoundStepShortensByItsKernelsTime() throws Exception {
        String[] base = {"--preset", "moe-tp8-graph", "--ranks", "2", "--layers", "8"};
        double truth = truth("graph-half-moe", base, "--scale", "moe_gemm=0.5");
        WhatIf.PhaseProjection p = project("graph", base, new Changes(Map.of("moe_gemm", 0.5), Map.of(), Map.of(), null,
                false, 1.0));
        assertEquals(truth, p.projectedStepMs(), 0.02 * truth, p.toString());
        // CUDA graphs: the kernels are the step, so Amdahl's bound is the projection too
        assertEquals(p.projectedStepMs(), p.amdahlStepMs(), 0.02 * truth, p.toString());
        assertTrue(p.projectedStepMs() < 0.95 * p.stepMs(), p.toString());
    }

    @Test
    void aHostBoundStepDoesNotShortenBeyondTheCpusTime() throws Exception {
        String[] base = {"--preset", "moe-tp8-eager", "--ranks", "2", "--layers", "8", "--host-overhead", "8"};
        double truth = truth("eager-no-moe", base, "--scale", "moe_gemm=0.01");
        WhatIf.PhaseProjection p = project("eager", base, new Changes(Map.of("moe_gemm", 0.01), Map.of(), Map.of(),
                null, false, 1.0));
        assertEquals(truth, p.projectedStepMs(), 0.02 * truth, p.toString());
        assertTrue(p.difference().startsWith("host-bound"), p.difference());
        // the report leads with it too, whatever the GPU's largest part
        assertTrue(finding.startsWith("The CPU sets the step"), finding);
        // the kernels sat in time the GPU waited for launches: removing them saves far less than Amdahl says
        double amdahlSaving = p.stepMs() - p.amdahlStepMs();
        double saving = p.stepMs() - p.projectedStepMs();
        assertTrue(amdahlSaving > 0 && saving < 0.5 * amdahlSaving, p.toString());
    }

    @Test
    void aStragglerRemovedTakesTheOthersWaitAway() throws Exception {
        String[] even = {"--preset", "moe-tp8-graph", "--ranks", "4", "--layers", "8", "--fixed-transfers"};
        double truth = truth("even", even);
        List<String> slow = new ArrayList<>(List.of(even));
        slow.addAll(List.of("--slow-rank", "1=1.3"));
        WhatIf.PhaseProjection p = project("straggler", slow.toArray(String[]::new),
                new Changes(Map.of(), Map.of(), Map.of(), null, true, 1.0));
        assertEquals(truth, p.projectedStepMs(), 0.02 * truth, p.toString());
        assertTrue(p.stepMs() > 1.1 * truth, "the straggler slows the step: " + p);
    }

    /** The decode step time EXPECTED.json gives for a capture generated with {@code options} plus {@code more}. */
    private double truth(String name, String[] options, String... more) throws Exception {
        Path dir = synth(name, options, more);
        return JSON.readTree(dir.resolve("EXPECTED.json").toFile()).at("/phases/decode/step_ms_per_step").asDouble();
    }

    /** The report's decode finding of the last capture {@link #project} projected. */
    private String finding;

    /** The decode projection of a capture generated with {@code options}, under {@code changes}. */
    private WhatIf.PhaseProjection project(String name, String[] options, Changes changes) throws Exception {
        Path dir = synth(name, options);
        try (Steptrace st = Steptrace.openTraces(dir, tmp.resolve(name + ".duckdb")); Capture c = st.capture()) {
            finding = c.report().phases().get("decode").stepTime().finding();
            List<WhatIf.PhaseProjection> phases = c.whatIf(changes, "decode");
            assertEquals(1, phases.size());
            return phases.get(0);
        }
    }

    private Path synth(String name, String[] options, String... more) {
        Path dir = tmp.resolve(name);
        List<String> args = new ArrayList<>(List.of("synth", "--steps", "6", "--seed", "3", "--out", dir.toString(),
                "--quiet"));
        args.addAll(List.of(options));
        args.addAll(List.of(more));
        assertEquals(0, Main.run(args.toArray(String[]::new)), args.toString());
        return dir;
    }
}
