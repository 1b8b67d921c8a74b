package dev.steptrace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.testing.JsonSchemas;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code steptrace whatif} on the LL decode sample: its JSON as docs/whatif.schema.json says, the figures the
 * text prints, and one line for each option a user can get wrong.
 */
class WhatIfCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;

    private static String capture;
    private static String db;

    @BeforeAll
    static void ingest() {
        capture = TestData.sampleTraces().resolve("h200-tp2-moe-decode").resolve("graph-nccl-ll").toString();
        db = tmp.resolve("whatif.duckdb").toString();
        Cli.assertExit(0, Cli.run("ingest", capture, "--db", db, "--quiet"));
    }

    @Test
    void jsonFollowsItsSchema() throws Exception {
        Cli.Result r = Cli.run("whatif", capture, "--db", db, "--scale", "allreduce=0", "--format", "json");
        Cli.assertExit(0, r);
        JsonNode out = JSON.readTree(r.out());
        JsonSchemas.assertValid("whatif.schema.json", out);
        assertEquals("--scale allreduce=0", out.at("/changes/0").asText());
        JsonNode decode = out.at("/phases/decode");
        // the step time is step_times' (the sample's 10 steps of 2 ranks, each rank's window mean)
        double step = Double.parseDouble(Cli.run("query", "SELECT avg(step_ns) / 1e6 FROM step_times", "--db", db,
                "--format", "csv").out().lines().skip(1).findFirst().orElseThrow());
        assertEquals(step, decode.get("step_ms").asDouble(), 1e-6 * step);
        assertEquals(step, decode.get("replayed_step_ms").asDouble(), 1e-4 * step);
        // without all-reduces the step is shorter, and no all-reduce is left on its critical path
        double projected = decode.get("projected_step_ms").asDouble();
        assertTrue(projected < 0.99 * step, decode.toString());
        double path = 0;
        for (JsonNode p : decode.get("projected_critical_path")) {
            assertTrue(!p.get("part").asText().equals("comm_allreduce"), "no all-reduce left on the path: " + p);
            path += p.get("ms_per_step").asDouble();
        }
        assertEquals(projected, path, 0.01 * projected);
    }

    @Test
    void textNamesTheFiguresAndWhyTheyDiffer() {
        Cli.Result r = Cli.run("whatif", capture, "--db", db, "--scale", "moe_gemm=0.5");
        Cli.assertExit(0, r);
        assertTrue(r.out().startsWith("what if: graph-nccl-ll, --scale moe_gemm=0.5\n"), r.out());
        for (String line : new String[] {"Decode: 10 steps per rank", "  step time ", "  projected ", "  Amdahl's bound ",
                "  critical path, as captured | as projected"}) {
            assertTrue(r.out().contains(line), line + " in\n" + r.out());
        }
        // CUDA graphs: the MoE GEMMs are on the critical path, so the projection and the bound agree
        assertTrue(r.out().contains("the changed time is on the critical path"), r.out());
    }

    @Test
    void badOptionsAreOneLineEach() {
        assertOneLine(2, "--scale: unknown category nope", "--scale", "nope=2");
        assertOneLine(2, "--busbw: allreduce=0: the bandwidth must be above 0", "--busbw", "allreduce=0");
        assertOneLine(2, "--format must be text or json, not xml", "--format", "xml");
        assertOneLine(1, "graph-nccl-ll has no prefill steps (phases: decode)", "--phase", "prefill");
    }

    private static void assertOneLine(int exit, String message, String... options) {
        String[] args = new String[options.length + 4];
        args[0] = "whatif";
        args[1] = capture;
        args[2] = "--db";
        args[3] = db;
        System.arraycopy(options, 0, args, 4, options.length);
        Cli.Result r = Cli.run(args);
        Cli.assertExit(exit, r);
        assertTrue(r.err().startsWith("steptrace: " + message), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
    }
}
