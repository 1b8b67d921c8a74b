package dev.steptrace.roofline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.report.BottleneckReport.ModelFloor;
import dev.steptrace.testing.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Model files: the bundled ones read, their floors against hand-worked figures, bad files say what is wrong. */
class ModelSpecTest {
    @TempDir
    Path tmp;

    @Test
    void kimiK25OnEightRtxPro6000s() {
        ModelSpec m = ModelSpec.read(TestData.repoRoot().resolve("models/kimi-k2.5-int4-tp8.yaml"));
        DevicePeaks.Device rtx = DevicePeaks.builtIn().match("NVIDIA RTX PRO 6000 Blackwell Server Edition");
        Map<String, ModelFloor> floors = DecodeFloors.of(m, rtx);
        // Routed experts: 60 MoE layers x 8 experts x 3 x 7168 x 2048/8 weights at 4 bits + a bf16 scale per 32.
        double weights = 3.0 * 7168 * 256;
        double moeBytes = 60 * 8 * (weights / 2 + weights / 32 * 2);
        assertEquals(moeBytes, floors.get("moe_gemm").bytes(), 1);
        assertEquals(moeBytes / 1792e9 * 1e3, floors.get("moe_gemm").floorMs(), 1e-9, "memory-bound at 1792 GB/s");
        // MLA latent cache: 61 layers x 8192 tokens x (512 + 64) values x 2 bytes, whole on every GPU.
        assertEquals(61.0 * 8192 * 576 * 2, floors.get("attention").bytes(), 1);
        // 61 x 2 + 1 all-reduces of 7168 bf16 values, 2 x 7/8 of each over one direction of PCIe Gen5 x16 (64 GB/s).
        double bus = 123 * 7168 * 2 * 2 * 7 / 8.0;
        assertEquals(bus, floors.get("allreduce").bytes(), 1e-6);
        assertEquals(bus / 64e9 * 1e3, floors.get("allreduce").floorMs(), 1e-12);
        assertNull(rtx.bf16Tflops(), "the datasheet gives no dense bf16 rate: the floor is the memory one");
    }

    @Test
    void expertParallelismSplitsTheExpertsNotTheirWeights() throws Exception {
        Path f = tmp.resolve("ep.yaml");
        Files.writeString(f, """
                hidden_size: 1024
                layers: 2
                vocab_size: 1000
                attention: {heads: 8, kv_heads: 8, head_dim: 128}
                moe: {experts: 16, top_k: 2, intermediate_size: 512, weight_bits: 8}
                parallel: {tp: 4, ep: 4}
                workload: {batch: 4, context: 100}
                """);
        ModelSpec m = ModelSpec.read(f);
        ModelFloor moe = DecodeFloors.of(m, DevicePeaks.builtIn().match("NVIDIA H200")).get("moe_gemm");
        // 4 experts on this GPU, whole; 4 tokens x top-2 of 16 touch 16 x (1 - (14/16)^4) experts, a quarter here.
        double touched = 4 * (1 - Math.pow(14.0 / 16, 4));
        assertEquals(2 * touched * 3 * 1024 * 512, moe.bytes(), 1e-6);
        assertEquals(2 * 2.0 * 4 * 2 / 4 * 3 * 1024 * 512, moe.flops(), 1e-6);
    }

    @Test
    void badFilesSayWhatIsWrong() throws Exception {
        String ok = "hidden_size: 8\nlayers: 1\nvocab_size: 10\nattention: {heads: 2, head_dim: 4}\n"
                + "dense_mlp: {intermediate_size: 16}\nworkload: {batch: 1, context: 4}\n";
        ModelSpec.read(write(ok));
        assertMessage(ok.replace("hidden_size: 8", "hidden_size: -8"), "hidden_size must be a whole number of at least 1");
        assertMessage(ok.replace("layers: 1", "layer: 1"), "unknown key layer");
        assertMessage(ok.replace("dense_mlp: {intermediate_size: 16}\n", ""), "dense_mlp.intermediate_size is missing");
        assertMessage(ok + "compute: fp4\n", "compute must be bf16, fp16, fp8 or int8");
        assertMessage(ok.replace("heads: 2", "heads: 2, type: mha"), "type must be gqa or mla");
        assertMessage(ok + "parallel: {tp: 3, ep: 2}\n", "parallel.ep must divide parallel.tp");
        assertMessage(ok + "weight_bits: 128\n", "weight_bits is bits per element, at most 64");
        assertMessage("layers: [\n", "not valid YAML");
        RooflineFileException e = assertThrows(RooflineFileException.class, () -> ModelSpec.read(tmp.resolve("none.yaml")));
        assertTrue(e.getMessage().endsWith("none.yaml: no such file"), e.getMessage());
    }

    private Path write(String yaml) throws Exception {
        Path f = tmp.resolve("m.yaml");
        Files.writeString(f, yaml);
        return f;
    }

    private void assertMessage(String yaml, String expected) throws Exception {
        Path f = write(yaml);
        RooflineFileException e = assertThrows(RooflineFileException.class, () -> ModelSpec.read(f));
        assertTrue(e.getMessage().startsWith("model file " + f), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
