package dev.steptrace.quality;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.api.Steptrace;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Threshold;
import dev.steptrace.rules.Thresholds;
import dev.steptrace.store.DuckDb;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.RuleEvidence;
import dev.steptrace.testsupport.StoreDb;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One small hand-made Kineto capture per capture-quality rule that triggers it, and clean ones on which
 * none fires.
 * Each rank file is written here: ProfilerStep annotations 1 ms apart on the CPU thread, a
 * cudaLaunchKernel per kernel 10 µs into the step, kernels 100 µs long from 20 µs into the step; the
 * expected warnings and evidence rows (each rule's evidence query of docs/warnings.md, run on the store)
 * follow from that construction. {@link #FIXTURES} names the fixture of every registered rule.
 */
class CaptureRulesTest {
    private static final String GEMM = "ampere_sgemm_128x64_nn";
    private static final String ALLREDUCE = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)";
    private static final String H100 = "[{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}]";

    /** Where each registered rule's fixture is: a test of this class, else the test named. */
    private static final Map<String, String> FIXTURES = new LinkedHashMap<>();

    static {
        FIXTURES.put("partial_file", "partialFile");
        FIXTURES.put("missing_ranks", "missingRanks");
        FIXTURES.put("device_guessed", "deviceGuessedAndUnknown");
        FIXTURES.put("device_unknown", "deviceGuessedAndUnknown");
        FIXTURES.put("nvtx_ranges_not_steps", "NvtxStepsTest.rangesNamedPerLayerAreNotSteps (Nsight Systems only)");
        FIXTURES.put("no_steps", "noSteps");
        FIXTURES.put("step_count_mismatch", "stepCountMismatch");
        FIXTURES.put("unknown_phase", "unknownPhase");
        FIXTURES.put("ops_outside_steps", "opsOutsideSteps");
        FIXTURES.put("graph_without_kernels", "graphWithoutKernels");
        FIXTURES.put("multi_gpu_file", "NsysIngestTest.aFileWithTheWorkOfSeveralGpusIsReported (Nsight Systems only)");
        FIXTURES.put("unclassified_kernels", "unclassifiedKernels");
        FIXTURES.put("untyped_generic_collectives", "untypedGenericCollectives");
        FIXTURES.put("moe_not_told_apart", "LaunchContextTest.withoutContextTheMoePartIsAWarning (launch contexts)");
        FIXTURES.put("graph_input_copies", "LaunchContextTest.graphInputCopiesAreNamedWithTheirOp (launch contexts)");
        FIXTURES.put("graph_recording", "CompileCaptureTest.recordingRecompileAndBreaksOfTheRealCapture (real capture)"
                + " and CompileCaptureTest.handMadeCompileSteps");
        FIXTURES.put("recompiles", "CompileCaptureTest.recordingRecompileAndBreaksOfTheRealCapture (real capture)"
                + " and CompileCaptureTest.handMadeCompileSteps");
        FIXTURES.put("graph_breaks", "CompileCaptureTest.recordingRecompileAndBreaksOfTheRealCapture (real capture)"
                + " and CompileCaptureTest.handMadeCompileSteps");
        FIXTURES.put("host_syncs_in_graph_steps", "GraphStepSyncTest.itemBetweenTwoReplays (graph replays and .item())");
        FIXTURES.put("clock_offset", "clockOffset");
        FIXTURES.put("launch_bound", "launchBound");
        FIXTURES.put("unknown_device_peaks", "unknownDevicePeaks");
        FIXTURES.put("model_file_disagrees", "RooflineOnRealTracesTest.eagerShapesCheckTheModelFile (a model file and op shapes)");
    }

    @TempDir
    Path tmp;

    /** One rank file: its rank and world size, listed devices, steps, and what each step holds. */
    private static final class Rank {
        final int rank;
        final int worldSize;
        final int steps;
        String devices = H100;
        int device = 0;
        String kernel = GEMM;
        boolean kernelBeforeFirstStep;
        boolean lateSecondKernel;
        boolean graphLaunchWithoutKernel;
        boolean noGpuWork;
        long shiftUs;

        private Rank(int rank, int worldSize, int steps) {
            this.rank = rank;
            this.worldSize = worldSize;
            this.steps = steps;
        }

        static Rank of(int rank, int worldSize, int steps) {
            return new Rank(rank, worldSize, steps);
        }

        Rank withDevice(String devices, int device) {
            this.devices = devices;
            this.device = device;
            return this;
        }

        Rank withKernel(String name) {
            this.kernel = name;
            return this;
        }

        Rank withKernelBeforeFirstStep() {
            kernelBeforeFirstStep = true;
            return this;
        }

        /** A second kernel per step, launched 80 µs after the first ends (at 200 µs), running 210-310 µs. */
        Rank withLateSecondKernel() {
            lateSecondKernel = true;
            return this;
        }

        /** A cudaGraphLaunch 300 µs into each step whose replay has no kernel records. */
        Rank withGraphLaunchWithoutKernel() {
            graphLaunchWithoutKernel = true;
            return this;
        }

        /** No step annotation, launch or kernel: a CPU op where each step would be. */
        Rank withoutGpuWork() {
            noGpuWork = true;
            return this;
        }

        /** Every time later by {@code us}: this rank's clock reads that much ahead. */
        Rank shifted(long us) {
            shiftUs = us;
            return this;
        }

        String json() {
            List<String> ev = new ArrayList<>();
            long correlation = 1;
            long t = 1_000 + shiftUs;
            if (kernelBeforeFirstStep) {
                ev.add(launch("cudaLaunchKernel", t, correlation));
                ev.add(kernel(t + 10, correlation++));
                t += 500;
            }
            for (int s = 0; s < steps; s++) {
                if (noGpuWork) {
                    ev.add(String.format(Locale.ROOT, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::empty\","
                            + " \"pid\": 100, \"tid\": 100, \"ts\": %d, \"dur\": 900}", t));
                } else {
                    ev.add(String.format(Locale.ROOT, "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\","
                            + " \"pid\": 100, \"tid\": 100, \"ts\": %d, \"dur\": 900}", s, t));
                    ev.add(launch("cudaLaunchKernel", t + 10, correlation));
                    ev.add(kernel(t + 20, correlation++));
                }
                if (lateSecondKernel) {
                    ev.add(launch("cudaLaunchKernel", t + 200, correlation));
                    ev.add(kernel(t + 210, correlation++));
                }
                if (graphLaunchWithoutKernel) {
                    ev.add(launch("cudaGraphLaunch", t + 300, correlation++));
                }
                t += 1_000;
            }
            return String.format(Locale.ROOT, "{\"deviceProperties\": %s, \"distributedInfo\": {\"rank\": %d, \"world_size\": %d},"
                    + " \"traceEvents\": [%s]}", devices, rank, worldSize, String.join(",\n", ev));
        }

        private static String launch(String name, long ts, long correlation) {
            return String.format(Locale.ROOT, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\","
                    + " \"pid\": 100, \"tid\": 100, \"ts\": %d, \"dur\": 5, \"args\": {\"correlation\": %d}}", name, ts, correlation);
        }

        private String kernel(long ts, long correlation) {
            return String.format(Locale.ROOT, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": %d, \"tid\": 7,"
                    + " \"ts\": %d, \"dur\": 100, \"args\": {\"device\": %d, \"stream\": 7, \"correlation\": %d}}",
                    kernel, device, ts, device, correlation);
        }
    }

    /**
     * What the report of a fixture says: its warnings as report.json holds them, and every registered rule's
     * evidence rows.
     */
    private record Checked(List<JsonNode> warnings, Map<String, List<String>> evidence) {
        List<JsonNode> of(String code) {
            return warnings.stream().filter(w -> w.get("code").asText().equals(code)).toList();
        }

        /** The one warning of {@code code}, with its rule's severity, summary and thresholds. */
        String only(String code) {
            List<JsonNode> found = of(code);
            assertEquals(1, found.size(), code + " once in " + warnings);
            Rule rule = RuleEvidence.rule(code);
            JsonNode w = found.get(0);
            assertEquals(rule.severity().label(), w.get("severity").asText());
            assertEquals(rule.summary(), w.get("summary").asText());
            for (Threshold t : rule.thresholds()) {
                assertTrue(w.at("/thresholds/" + t.name()).isNumber(), code + " carries its threshold " + t.name() + ": " + w);
            }
            return w.get("message").asText();
        }

        /** The evidence rows of {@code code}'s rule, only the columns named (1 is the first), joined by {@code |}. */
        List<String> evidence(String code, int... columns) {
            List<String> out = new ArrayList<>();
            for (String row : evidence.get(code)) {
                String[] cells = row.split("\\|", -1);
                List<String> kept = new ArrayList<>();
                for (int c : columns) {
                    kept.add(cells[c - 1]);
                }
                out.add(String.join("|", kept));
            }
            return out;
        }

        List<String> codes() {
            return warnings.stream().map(w -> w.get("code").asText()).toList();
        }
    }

    private Path write(String name, Rank... ranks) throws IOException {
        Path dir = Files.createDirectories(tmp.resolve(name));
        for (Rank r : ranks) {
            Files.writeString(dir.resolve("rank" + r.rank + ".pt.trace.json"), r.json(), StandardCharsets.UTF_8);
        }
        return dir;
    }

    /**
     * Reports a fixture through the command line (report.json only), then, with a plain DuckDB connection to its
     * store: runs every warning's evidence as report.json carries it, which must run as it is and give rows, and
     * every registered rule's evidence query for the capture.
     */
    private Checked check(Path dir) throws Exception {
        Path db = tmp.resolve(dir.getFileName() + ".duckdb");
        Path out = tmp.resolve(dir.getFileName() + "-out");
        Cli.assertExit(0, Cli.run("report", dir.toString(), "--db", db.toString(), "--out", out.toString(),
                "--format", "json", "--no-timeline", "--quiet"));
        List<JsonNode> warnings = new ArrayList<>();
        new ObjectMapper().readTree(out.resolve("report.json").toFile()).get("warnings").forEach(warnings::add);
        Map<String, List<String>> evidence = new LinkedHashMap<>();
        Properties readOnly = new Properties();
        readOnly.setProperty("duckdb.read_only", "true");
        try (Connection c = DuckDb.connect(db, readOnly)) {
            for (JsonNode w : warnings) {
                assertTrue(w.hasNonNull("evidence"), "a catalogued warning carries its evidence: " + w);
                assertFalse(RuleEvidence.rows(c, w.get("evidence").asText()).isEmpty(),
                        "the evidence of " + w.get("code") + " gives rows: " + w.get("evidence").asText());
            }
            int capture = Integer.parseInt(RuleEvidence.rows(c, "SELECT min(capture_id) FROM analyses").get(0));
            for (Rule r : CaptureRules.catalogue()) {
                evidence.put(r.id(), RuleEvidence.rows(c, r.id(), capture, "default"));
            }
        }
        return new Checked(warnings, evidence);
    }

    private Checked check(String name, Rank... ranks) throws Exception {
        return check(write(name, ranks));
    }

    @Test
    void everyRegisteredRuleHasAFixture() {
        assertEquals(new TreeSet<>(CaptureRules.catalogue().stream().map(Rule::id).toList()), new TreeSet<>(FIXTURES.keySet()),
                "each rule needs a fixture that triggers it (FIXTURES says where)");
    }

    /**
     * duplicate_rank is retired (docs/warnings.md): two files that claim one rank are never one capture
     * (CaptureGrouping), and ranks assumed from file order are those the capture leaves free.
     */
    @Test
    void twoFilesOfOneRankAreTwoCaptures() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("same-rank"));
        Files.writeString(dir.resolve("a.pt.trace.json"), Rank.of(0, 2, 2).json(), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("b.pt.trace.json"), Rank.of(0, 2, 2).withKernel("ampere_sgemm_64x64_nn").json(),
                StandardCharsets.UTF_8);
        try (Steptrace st = Steptrace.openTraces(dir, tmp.resolve("same-rank.duckdb"))) {
            assertEquals(2, st.captureList().size());
        }
    }

    /**
     * Clean captures, on which no rule fires but unknown_phase (a ProfilerStep names no phase): one rank
     * with one GEMM per step on a listed H100 with known peaks, and two ranks of a world of two with an
     * all-reduce per step, the same steps, on one clock. The evidence of the rules that count shows none.
     */
    @Test
    void noRuleFiresOnACleanCapture() throws Exception {
        Checked one = check("clean", Rank.of(0, 1, 3));
        assertEquals(List.of("unknown_phase"), one.codes());
        // file_checks of rank 0: 3 operations of 100 µs, none outside a step; no graph launch at all.
        assertEquals(List.of("0|3|300000|0|0|0|0"), one.evidence("ops_outside_steps", 1, 3, 4, 5, 6, 7, 8));
        assertEquals(List.of("3|3"), one.evidence().get("no_steps"), "3 steps, none with a phase");
        assertTrue(one.evidence("unclassified_kernels", 1).stream().noneMatch(r -> r.equals("other.unclassified")));
        Checked two = check("clean-ranks", Rank.of(0, 2, 3).withKernel(ALLREDUCE), Rank.of(1, 2, 3).withKernel(ALLREDUCE));
        assertEquals(List.of("unknown_phase"), two.codes());
        assertEquals(List.of("0|2", "1|2"), two.evidence("missing_ranks", 2, 4), "ranks 0 and 1 of a world of 2");
        // One clock: every one of the 3 instances ends at the same moment on both ranks.
        assertEquals(List.of("0|0|3|0|0", "1|0|3|0|0"), two.evidence().get("clock_offset"));
        // One 100 µs kernel a step, launched before the GPU went idle: no idle time, no launch wait.
        assertEquals(List.of("unknown|0.00|0.00|0.10"), two.evidence().get("launch_bound"));
    }

    @Test
    void missingRanks() throws Exception {
        Checked w = check("missing", Rank.of(0, 4, 2), Rank.of(1, 4, 2));
        String m = w.only("missing_ranks");
        assertTrue(m.contains("world size 4 but only 2 rank file(s)"), m);
        assertEquals(List.of("0|4", "1|4"), w.evidence("missing_ranks", 2, 4));
    }

    @Test
    void stepCountMismatch() throws Exception {
        Checked w = check("mismatch", Rank.of(0, 2, 3), Rank.of(1, 2, 2));
        String m = w.only("step_count_mismatch");
        assertTrue(m.contains("rank 0: 3, rank 1: 2") && m.contains("over the first 2 steps"), m);
        assertEquals(List.of("unknown|0|3", "unknown|1|2"), w.evidence("step_count_mismatch", 1, 2, 3));
    }

    @Test
    void unknownPhase() throws Exception {
        // ProfilerStep steps without a vLLM or prefill/decode annotation inside have no phase: all 3.
        Checked w = check("unknown", Rank.of(0, 1, 3));
        assertTrue(w.only("unknown_phase").startsWith("3 step(s) have no phase"));
        assertEquals(List.of("3|3"), w.evidence().get("unknown_phase"), "3 steps, 3 without a phase");
    }

    @Test
    void opsOutsideSteps() throws Exception {
        // One kernel of 100 µs before the first of 4 steps, each with one kernel of 100 µs: 1 of 5, 20%.
        Checked w = check("outside", Rank.of(0, 1, 4).withKernelBeforeFirstStep());
        String m = w.only("ops_outside_steps");
        assertTrue(m.startsWith("1 GPU operation(s) (0.10 ms, 20.0% of GPU time)"), m);
        assertEquals(List.of("5|500000|1|100000"), w.evidence("ops_outside_steps", 3, 4, 5, 6));
    }

    @Test
    void unclassifiedKernels() throws Exception {
        Checked w = check("unclassified", Rank.of(0, 1, 2).withKernel("my_own_fused_thing"));
        String m = w.only("unclassified_kernels");
        assertTrue(m.startsWith("100.0% of kernel time is in 1 kernel name(s)"), m);
        assertEquals(List.of("other.unclassified|1|2|200000"), w.evidence().get("unclassified_kernels"), "2 x 100 µs");
    }

    @Test
    void deviceGuessedAndUnknown() throws Exception {
        Checked guessed = check("guessed", Rank.of(0, 1, 2).withDevice("[{\"id\": 0, \"name\": \"AMD Instinct MI300X\"}]", 9));
        String m = guessed.only("device_guessed");
        assertTrue(m.contains("device 9") && m.contains("it lists id 0") && m.contains("taken to be AMD Instinct MI300X"), m);
        assertEquals(List.of("0|9|AMD Instinct MI300X|only_model|0"), guessed.evidence("device_guessed", 1, 3, 4, 5, 6));
        Checked unknown = check("unknown-device", Rank.of(0, 1, 2).withDevice(
                "[{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}, {\"id\": 1, \"name\": \"NVIDIA A100-SXM4-80GB\"}]", 5));
        m = unknown.only("device_unknown");
        assertTrue(m.contains("device 5") && m.contains("it lists id 0, 1"), m);
        assertEquals(List.of("0|5|NULL|NULL|0, 1"), unknown.evidence("device_unknown", 1, 3, 4, 5, 6));
    }

    @Test
    void partialFile() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("partial"));
        String json = Rank.of(0, 1, 3).json();
        Files.writeString(dir.resolve("rank0.pt.trace.json"), json.substring(0, json.lastIndexOf("{\"ph\"")),
                StandardCharsets.UTF_8);
        Checked w = check(dir);
        assertTrue(w.only("partial_file").contains("rank0.pt.trace.json is incomplete"));
        assertEquals(List.of("0|partial"), w.evidence("partial_file", 2, 5));
        assertTrue(w.evidence("partial_file", 3).get(0).endsWith("rank0.pt.trace.json"));
    }

    @Test
    void noSteps() throws Exception {
        // CPU ops only: no annotation, no graph launch and no GPU work to make a step of.
        Checked w = check("no-steps", Rank.of(0, 1, 3).withoutGpuWork());
        assertTrue(w.only("no_steps").startsWith("no steps were found"), w.warnings().toString());
        assertEquals(List.of("0|0"), w.evidence().get("no_steps"));
    }

    @Test
    void graphWithoutKernels() throws Exception {
        // One cudaGraphLaunch per step of 3, none with a kernel of its correlation.
        Checked w = check("graph", Rank.of(0, 1, 3).withGraphLaunchWithoutKernel());
        assertTrue(w.only("graph_without_kernels").startsWith("3 of 3 CUDA graph launches have no kernel records"),
                w.warnings().toString());
        assertEquals(List.of("0|3|3"), w.evidence("graph_without_kernels", 1, 7, 8));
    }

    @Test
    void untypedGenericCollectives() throws Exception {
        // RCCL's generic collective kernel, launched by a bare cudaLaunchKernel: no CPU op names its type.
        Checked w = check("generic", Rank.of(0, 1, 2).withKernel("ncclDevKernel_Generic"));
        assertTrue(w.only("untyped_generic_collectives").startsWith("2 launch(es) (0.20 ms) of ncclDevKernel_Generic"),
                w.warnings().toString());
        assertEquals(List.of("comm.nccl.generic|1|2|200000"), w.evidence().get("untyped_generic_collectives"));
    }

    /** Three ranks, one all-reduce per step each, rank 2's clock 600 µs ahead: ends agree but for that. */
    private Path clockFixture() throws IOException {
        return write("clocks", Rank.of(0, 3, 4).withKernel(ALLREDUCE), Rank.of(1, 3, 4).withKernel(ALLREDUCE),
                Rank.of(2, 3, 4).withKernel(ALLREDUCE).shifted(600));
    }

    @Test
    void clockOffset() throws Exception {
        Checked w = check(clockFixture());
        // Against the median rank's end times: ranks 0 and 1 are on time, rank 2 is 600 µs ahead.
        String m = w.only("clock_offset");
        assertTrue(m.contains("rank 2 +600.0 µs") && !m.contains("rank 0") && !m.contains("rank 1 "), m);
        // Each of the 4 instances ends 600 µs later on rank 2's clock than on the others': the median end is theirs.
        assertEquals(List.of("0|0|4|0|0", "1|0|4|0|0", "2|600000|4|600000|600000"), w.evidence().get("clock_offset"));
    }

    @Test
    void launchBound() throws Exception {
        // Per step: kernels at 20-120 and 210-310 µs, the second launched at 200 µs, after the GPU went idle
        // at 120: a launch wait of 90 µs in a span of 290 µs, 31.0% (the default threshold is 20%).
        Checked w = check(write("late-launch", Rank.of(0, 1, 3).withLateSecondKernel()));
        assertTrue(w.only("launch_bound").startsWith("unknown is launch-bound: the GPU waits for the CPU to launch work"
                + " 31.0% of the step span (0.09 ms per step"), w.warnings().toString());
        // Per step: idle 90 µs (120 to 210), all of it waiting for the late launch, in a span of 290 µs.
        assertEquals(List.of("unknown|0.09|0.09|0.29"), w.evidence().get("launch_bound"));
    }

    @Test
    void unknownDevicePeaks() throws Exception {
        Checked w = check("imaginary", Rank.of(0, 1, 2).withDevice("[{\"id\": 0, \"name\": \"NVIDIA Imaginary X1\"}]", 0));
        assertTrue(w.only("unknown_device_peaks").startsWith("unknown peak for NVIDIA Imaginary X1"), w.warnings().toString());
        assertEquals(List.of("0|NVIDIA Imaginary X1"), w.evidence("unknown_device_peaks", 2, 3));
    }

    /**
     * {@code --warn-threshold} moves a rule's threshold across the fixture's value and is part of the kept
     * analysis's key: the launch-bound fixture waits 31.0% of its span, so 40 silences the warning, and
     * the default analysis kept before is neither reused for the override nor replaced by it.
     */
    @Test
    void aThresholdOverrideDecidesWhetherTheRuleFires() throws Exception {
        Path dir = write("override", Rank.of(0, 1, 3).withLateSecondKernel());
        Path db = tmp.resolve("override.duckdb");
        assertTrue(launchBound(dir, db, List.of()), "31.0% >= 20%, the default");
        assertFalse(launchBound(dir, db, List.of("--warn-threshold", "launch_bound.launch_wait_pct=40")), "31.0% < 40%");
        assertTrue(launchBound(dir, db, List.of()), "the default analysis, kept");
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals(2, s.count("SELECT count(*) FROM analyses"), "the default and the override, each its own key");
            assertEquals(1, s.count("SELECT count(*) FROM analyses WHERE analysis_key = 'default'"));
        }
        // The default value written out is the default analysis; so is a value written another way.
        assertEquals(Thresholds.defaults().text(), Thresholds.parse(List.of("launch_bound.launch_wait_pct=20.0"),
                CaptureRules.catalogue()).text());
        assertEquals(Thresholds.parse(List.of("clock_offset.offset_us=500"), CaptureRules.catalogue()).text(),
                Thresholds.parse(List.of("clock_offset.offset_us=5e2"), CaptureRules.catalogue()).text());
    }

    private boolean launchBound(Path dir, Path db, List<String> extra) throws IOException {
        Path out = tmp.resolve("override-out");
        List<String> args = new ArrayList<>(List.of("report", dir.toString(), "--db", db.toString(), "--out", out.toString(),
                "--format", "json", "--no-timeline", "--quiet"));
        args.addAll(extra);
        Cli.Result r = Cli.run(args.toArray(String[]::new));
        Cli.assertExit(0, r);
        JsonNode warnings = new ObjectMapper().readTree(out.resolve("report.json").toFile()).get("warnings");
        boolean fired = false;
        for (JsonNode w : warnings) {
            fired |= w.get("code").asText().equals("launch_bound");
        }
        return fired;
    }

    @Test
    void aBadThresholdOverrideIsAUsageError() throws IOException {
        Path dir = write("bad", Rank.of(0, 1, 1));
        for (String[] bad : List.of(
                new String[] {"no_such_rule.x=1", "no rule no_such_rule"},
                new String[] {"clock_offset.offset=1", "no threshold offset (it has offset_us)"},
                new String[] {"clock_offset.offset_us=far", "the value is not a number"},
                new String[] {"partial_file.any=1", "rule partial_file has no thresholds"},
                new String[] {"clock_offset=5", "is not RULE.NAME=VALUE"})) {
            for (String command : List.of("report", "timeline", "decide")) {
                List<String> args = new ArrayList<>(List.of(command, dir.toString(), "--db", tmp.resolve("bad.duckdb").toString(),
                        "--warn-threshold", bad[0]));
                if (command.equals("decide")) {
                    args.addAll(List.of("--scenario", "pcie-allreduce-tax"));
                }
                Cli.Result r = Cli.run(args.toArray(String[]::new));
                Cli.assertExit(2, r);
                assertTrue(r.err().strip().lines().count() == 1 && r.err().contains("--warn-threshold")
                        && r.err().contains(bad[1]) && !r.err().contains("\tat "), r.describe());
            }
        }
        Cli.Result diff = Cli.run("diff", dir.toString(), dir.toString(), "--db", tmp.resolve("bad.duckdb").toString(),
                "--warn-threshold", "launch_bound.launch_wait_pct=");
        Cli.assertExit(2, diff);
        assertTrue(diff.err().contains("the value is not a number"), diff.describe());
    }

    @Test
    void thresholdOverridesAreCheckedAgainstTheRules() {
        Thresholds t = Thresholds.parse(List.of("clock_offset.offset_us=500"), CaptureRules.catalogue());
        assertEquals(500, t.get(ClockOffsetRule.RULE, "offset_us"));
        assertEquals(5, t.get(UnclassifiedKernelsRule.RULE, "kernel_time_pct"), "the default");
        for (String bad : List.of("clock_offset=5", "no_such_rule.x=1", "clock_offset.offset=1", "clock_offset.offset_us=x",
                "partial_file.any=1", "clock_offset.offset_us=NaN", "clock_offset.offset_us=Infinity")) {
            assertThrows(IllegalArgumentException.class, () -> Thresholds.parse(List.of(bad), CaptureRules.catalogue()), bad);
        }
    }
}
