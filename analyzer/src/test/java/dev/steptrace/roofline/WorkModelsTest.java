package dev.steptrace.roofline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** Each op family's FLOPs and bytes against figures worked out by hand from the formulas' definitions. */
class WorkModelsTest {
    private static final String BF16 = "\"c10::BFloat16\"";

    private static WorkModels.Work work(String op, String dims, String types, String concrete) {
        return WorkModels.of(OpCall.parse(op, dims, types, concrete));
    }

    @Test
    void mmCountsTwoFlopsPerMultiplyAdd() {
        // 4096 x 7168 by 7168 x 5120 in bf16: the eager sample's QKV projection.
        WorkModels.Work w = work("aten::mm", "[[4096,7168],[7168,5120]]", "[" + BF16 + "," + BF16 + "]", "[\"\",\"\"]");
        assertEquals(2.0 * 4096 * 5120 * 7168, w.flops());
        assertEquals(2.0 * (4096 * 7168 + 7168 * 5120 + 4096 * 5120), w.bytes());
        assertEquals(Precision.BF16, w.precision());
        assertEquals("gemm", w.family());
    }

    @Test
    void addmmReadsTheBiasToo() {
        WorkModels.Work w = work("aten::addmm", "[[640],[888,2880],[2880,640],[],[]]",
                "[" + BF16 + "," + BF16 + "," + BF16 + ",\"Scalar\",\"Scalar\"]", "[\"\",\"\",\"\",\"1\",\"1\"]");
        assertEquals(2.0 * 888 * 640 * 2880, w.flops());
        assertEquals(2.0 * (640 + 888 * 2880 + 2880 * 640 + 888 * 640), w.bytes());
    }

    @Test
    void bmmAndMatmulAndLinear() {
        WorkModels.Work bmm = work("aten::bmm", "[[8,16,32],[8,32,64]]", "[\"float\",\"float\"]", null);
        assertEquals(2.0 * 8 * 16 * 64 * 32, bmm.flops());
        assertEquals(4.0 * (8 * 16 * 32 + 8 * 32 * 64 + 8 * 16 * 64), bmm.bytes());
        assertNull(bmm.precision(), "fp32 math has no tensor-core peak here");
        // matmul broadcasts [2, 1, 16, 32] with [3, 32, 8] to a batch of 2 x 3.
        assertEquals(2.0 * 6 * 16 * 8 * 32,
                work("aten::matmul", "[[2,1,16,32],[3,32,8]]", "[" + BF16 + "," + BF16 + "]", null).flops());
        // linear: x [4, 10, 64] by weight [128, 64]: 40 rows.
        WorkModels.Work lin = work("aten::linear", "[[4,10,64],[128,64],[128]]", "[" + BF16 + "," + BF16 + "," + BF16 + "]", null);
        assertEquals(2.0 * 40 * 128 * 64, lin.flops());
        assertEquals(2.0 * (40 * 64 + 128 * 64 + 128 + 40 * 128), lin.bytes());
    }

    @Test
    void scaledMmUsesTheOutputTypeItIsGiven() {
        String types = "[\"c10::Float8_e4m3fn\",\"c10::Float8_e4m3fn\",\"float\",\"float\",\"\",\"\",\"Scalar\",\"Scalar\"]";
        WorkModels.Work w = work("aten::_scaled_mm", "[[128,256],[256,512],[],[],[],[],[],[]]", types,
                "[\"\",\"\",\"\",\"\",\"\",\"\",\"15\",\"False\"]");
        assertEquals(2.0 * 128 * 512 * 256, w.flops());
        assertEquals(Precision.FP8, w.precision());
        // 0-dim fp32 scales: 4 bytes each; bf16 (code 15) output.
        assertEquals(128 * 256 + 256 * 512 + 4 + 4 + 128 * 512 * 2.0, w.bytes());
    }

    @Test
    void attentionCountsTheMaskedPairs() {
        // The eager sample's prefill: q, k, v [16, 32|4|4, 256, 128], causal (arg 10 of cuDNN's forward).
        String dims = "[[16,32,256,128],[16,4,256,128],[16,4,256,128],[],[],[],[],[],[],[],[],[],[]]";
        String types = "[" + BF16 + "," + BF16 + "," + BF16 + ",\"\",\"\",\"\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"\"]";
        WorkModels.Work causal = work("aten::_cudnn_attention_forward", dims, types,
                "[\"\",\"\",\"\",\"\",\"\",\"\",\"256\",\"256\",\"False\",\"0.\",\"True\",\"False\",\"\"]");
        double pairs = 256 * 257 / 2.0; // row i sees i + 1 keys
        assertEquals(2.0 * 16 * 32 * pairs * (128 + 128), causal.flops());
        assertEquals(2.0 * (16 * 32 * 256 * 128 + 2 * 16 * 4 * 256 * 128 + 16 * 32 * 256 * 128), causal.bytes());
        // Decode: one query over a 2048-key cache, no mask.
        WorkModels.Work decode = work("aten::_cudnn_attention_forward",
                "[[16,32,1,128],[16,4,2048,128],[16,4,2048,128],[],[],[],[],[],[],[],[],[],[]]", types,
                "[\"\",\"\",\"\",\"\",\"\",\"\",\"1\",\"2048\",\"False\",\"0.\",\"False\",\"False\",\"\"]");
        assertEquals(2.0 * 16 * 32 * 2048 * 256, decode.flops());
    }

    @Test
    void causalPairsAlignAsEachLibraryDoes() {
        // 2 queries over 4 keys: top-left rows see 1 and 2 keys; bottom-right rows see 3 and 4.
        assertEquals(3, WorkModels.pairs(2, 4, topLeft()));
        assertEquals(7, WorkModels.pairs(2, 4, bottomRight()));
        assertEquals(8, WorkModels.pairs(2, 4, null));
    }

    @Test
    void flashAttentionLaysOutSequenceBeforeHeads() {
        // [B, S, H, D] = [16, 559, 16, 64], causal at arg 8.
        String dims = "[[16,559,16,64],[16,559,16,64],[16,559,16,64],[],[],[],[],[],[],[],[],[],[],[],[]]";
        String concrete = "[\"\",\"\",\"\",\"\",\"\",\"559\",\"559\",\"0.\",\"True\",\"False\",\"\",\"\",\"\",\"\",\"\"]";
        WorkModels.Work w = work("aten::_flash_attention_forward", dims,
                "[" + BF16 + "," + BF16 + "," + BF16 + ",\"\",\"\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"\",\"\",\"\",\"\"]",
                concrete);
        assertEquals(2.0 * 16 * 16 * (559 * 560 / 2.0) * 128, w.flops());
    }

    @Test
    void memoryBoundOpsMoveBytesOnly() {
        WorkModels.Work norm = work("aten::_fused_rms_norm", "[[4096,7168],[],[7168],[]]",
                "[" + BF16 + ",\"ScalarList\"," + BF16 + ",\"Scalar\"]", null);
        assertNull(norm.flops());
        assertEquals(2.0 * 2 * 4096 * 7168 + 2 * 7168, norm.bytes());
        // mul of [32768, 1024] by a broadcast [32768, 1] float: result at 4 bytes per element.
        WorkModels.Work mul = work("aten::mul", "[[32768,1024],[32768,1]]", "[" + BF16 + ",\"float\"]", null);
        assertEquals(2.0 * 32768 * 1024 + 4.0 * 32768 + 4.0 * 32768 * 1024, mul.bytes());
        // A cast is a copy: bf16 in, fp32 out.
        assertEquals(4.0 * 10 + 2.0 * 10, work("aten::copy_", "[[10],[10],[]]", "[\"float\"," + BF16 + ",\"Scalar\"]", null).bytes());
        assertEquals(2.0 * 2 * 100, work("aten::silu", "[[100]]", "[" + BF16 + "]", null).bytes());
    }

    @Test
    void unknownStaysUnknown() {
        assertNull(work("aten::index_put_", "[[10],[],[10],[]]", "[" + BF16 + ",\"\"," + BF16 + ",\"Scalar\"]", null),
                "no model for the op");
        assertNull(work("aten::mm", "[[4,5],[6,7]]", "[" + BF16 + "," + BF16 + "]", null), "inner dims disagree");
        assertNull(work("aten::mm", "[[4,5]]", "[" + BF16 + "]", null), "an operand is missing");
        assertNull(work("aten::_flash_attention_forward", "[[100,8,64],[100,8,64],[100,8,64]]",
                "[" + BF16 + "," + BF16 + "," + BF16 + "]", null), "packed variable-length attention has no lengths");
        assertNull(work("aten::mm", "not json", null, null));
    }

    private static WorkModels.Mask topLeft() {
        return WorkModels.Mask.TOP_LEFT;
    }

    private static WorkModels.Mask bottomRight() {
        return WorkModels.Mask.BOTTOM_RIGHT;
    }
}
