package dev.steptrace.roofline;

import dev.steptrace.roofline.OpCall.Arg;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * FLOPs and bytes of one op call from its recorded shapes, by op family (docs/roofline.md gives each
 * formula). Bytes are the compulsory traffic: every input read once, every output written once, no
 * cache reuse counted; FLOPs count a multiply-add as two. An op without a model, or whose shapes do
 * not fit it, has no work (null): unknown stays unknown.
 */
public final class WorkModels {
    /** What one call does. {@code flops} or {@code bytes} may be null (unknown); {@code precision} too. */
    public record Work(String family, Precision precision, Double flops, Double bytes) {}

    private static final Map<String, Function<OpCall, Work>> MODELS = new HashMap<>();

    static {
        MODELS.put("aten::mm", c -> gemm(c, c.tensor(0), c.tensor(1), null, 2));
        MODELS.put("aten::addmm", c -> gemm(c, c.tensor(1), c.tensor(2), c.tensor(0), 2));
        MODELS.put("aten::bmm", c -> gemm(c, c.tensor(0), c.tensor(1), null, 3));
        MODELS.put("aten::baddbmm", c -> gemm(c, c.tensor(1), c.tensor(2), c.tensor(0), 3));
        MODELS.put("aten::matmul", WorkModels::matmul);
        MODELS.put("aten::linear", WorkModels::linear);
        MODELS.put("aten::_scaled_mm", WorkModels::scaledMm);
        MODELS.put("aten::_int_mm", c -> {
            Work w = gemm(c, c.tensor(0), c.tensor(1), null, 2);
            return w == null ? null : withOutput(w, c.tensor(0), c.tensor(1), 4.0);
        });
        MODELS.put("_C::cutlass_scaled_mm", WorkModels::cutlassScaledMm);

        // Attention: (query index, layout, index of is_causal or of the mask type).
        MODELS.put("aten::_scaled_dot_product_flash_attention", c -> attention(c, Layout.BHSD, 4, Mask.TOP_LEFT));
        MODELS.put("aten::_scaled_dot_product_efficient_attention", c -> attention(c, Layout.BHSD, 6, Mask.TOP_LEFT));
        MODELS.put("aten::_scaled_dot_product_cudnn_attention", c -> attention(c, Layout.BHSD, 6, Mask.TOP_LEFT));
        MODELS.put("aten::_cudnn_attention_forward", c -> attention(c, Layout.BHSD, 10, Mask.TOP_LEFT));
        MODELS.put("aten::_flash_attention_forward", c -> attention(c, Layout.BSHD, 8, Mask.BOTTOM_RIGHT));
        MODELS.put("aten::_efficient_attention_forward", c -> attention(c, Layout.BSHD, 9, Mask.BY_TYPE));

        // Norms: bytes only (their FLOPs are a few per element, never the limit).
        MODELS.put("aten::_fused_rms_norm", c -> norm(c, 2));
        MODELS.put("aten::rms_norm", c -> norm(c, 2));
        MODELS.put("aten::native_layer_norm", c -> norm(c, 2, 3));
        MODELS.put("aten::layer_norm", c -> norm(c, 2, 3));
        MODELS.put("_C::rms_norm", c -> sumOfTensors(c, "norm"));
        MODELS.put("_C::fused_add_rms_norm", WorkModels::fusedAddRmsNorm);
        MODELS.put("aten::_softmax", c -> unary(c, "softmax"));

        for (String op : Set.of("silu", "gelu", "relu", "neg", "exp", "rsqrt", "sqrt", "sigmoid", "tanh", "abs",
                "cos", "sin", "log", "reciprocal", "silu_", "gelu_", "relu_", "neg_", "exp_", "rsqrt_",
                "sigmoid_", "tanh_")) {
            MODELS.put("aten::" + op, c -> unary(c, "elementwise"));
        }
        for (String op : Set.of("add", "sub", "mul", "div", "pow", "maximum", "minimum", "where", "floor_divide",
                "remainder", "add_", "sub_", "mul_", "div_", "pow_")) {
            MODELS.put("aten::" + op, WorkModels::elementwise);
        }
        MODELS.put("aten::copy_", WorkModels::copy);
        MODELS.put("aten::fill_", c -> writeOnly(c));
        MODELS.put("aten::zero_", c -> writeOnly(c));
    }

    private WorkModels() {}

    /** Op names that have a model. */
    public static Set<String> names() {
        return MODELS.keySet();
    }

    /**
     * The work of a call of op {@code name} with the recorded shapes (the JSON arrays of {@code op_shapes}), or
     * null when there is no model for it or its shapes do not fit.
     */
    public static Work of(String name, String dimsJson, String typesJson, String concreteJson) {
        return of(OpCall.parse(name, dimsJson, typesJson, concreteJson));
    }

    /** The work of one call, or null when there is no model for it or its shapes do not fit. */
    static Work of(OpCall call) {
        Function<OpCall, Work> m = call == null ? null : MODELS.get(call.name());
        if (m == null) {
            return null;
        }
        try {
            return m.apply(call);
        } catch (RuntimeException e) {
            // Shapes no version of the op writes (too few dims, a list where a tensor belongs): no model.
            return null;
        }
    }

    // ---- GEMMs --------------------------------------------------------------------------------------

    /**
     * {@code a[..., M, K] x b[..., K, N]} with {@code rank} dims each (2: mm, 3: bmm): 2·batch·M·N·K FLOPs;
     * bytes a + b + bias (when given) + the output [batch, M, N] in a's type.
     */
    private static Work gemm(OpCall c, Arg a, Arg b, Arg bias, int rank) {
        if (a == null || b == null || a.rank() != rank || b.rank() != rank || a.dim(-1) != b.dim(-2)) {
            return null;
        }
        long batch = rank == 3 ? a.dim(0) : 1;
        long m = a.dim(-2);
        long k = a.dim(-1);
        long n = b.dim(-1);
        double out = (double) batch * m * n * Precision.elementBytes(a.type());
        double bytes = a.bytes() + b.bytes() + (bias == null ? 0 : bias.bytes()) + out;
        return new Work("gemm", Precision.ofType(a.type()), 2.0 * batch * m * n * k, bytes);
    }

    /** torch.matmul's broadcasting: a[..., M, K] x b[..., K, N], 1-D operands as a row or a column. */
    private static Work matmul(OpCall c) {
        Arg a = c.tensor(0);
        Arg b = c.tensor(1);
        if (a == null || b == null || a.rank() == 0 || b.rank() == 0) {
            return null;
        }
        long m = a.rank() == 1 ? 1 : a.dim(-2);
        long k = a.dim(-1);
        long n = b.rank() == 1 ? 1 : b.dim(-1);
        long kb = b.rank() == 1 ? b.dim(0) : b.dim(-2);
        if (k != kb) {
            return null;
        }
        long batch = 1;
        int batchDims = Math.max(a.rank(), b.rank()) - 2;
        for (int i = 1; i <= batchDims; i++) {
            long da = a.rank() - 2 - i >= 0 ? a.dims()[a.rank() - 2 - i] : 1;
            long db = b.rank() - 2 - i >= 0 ? b.dims()[b.rank() - 2 - i] : 1;
            batch *= Math.max(da, db);
        }
        double out = (double) batch * m * n * Precision.elementBytes(a.type());
        return new Work("gemm", Precision.ofType(a.type()), 2.0 * batch * m * n * k, a.bytes() + b.bytes() + out);
    }

    /** x[..., K] · weight[N, K]ᵀ + bias[N]: 2·(numel(x)/K)·N·K FLOPs. */
    private static Work linear(OpCall c) {
        Arg x = c.tensor(0);
        Arg w = c.tensor(1);
        Arg bias = c.tensor(2);
        if (x == null || w == null || w.rank() != 2 || x.rank() == 0 || x.dim(-1) != w.dim(1)) {
            return null;
        }
        long k = w.dim(1);
        long n = w.dim(0);
        long m = x.numel() / k;
        double out = (double) m * n * Precision.elementBytes(x.type());
        return new Work("gemm", Precision.ofType(x.type()), 2.0 * m * n * k,
                x.bytes() + w.bytes() + (bias == null ? 0 : bias.bytes()) + out);
    }

    /**
     * {@code _scaled_mm(a, b, scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum)}: fp8 or
     * int8 operands at one byte each, scales, and the output in {@code out_dtype} (a's type when not given).
     */
    private static Work scaledMm(OpCall c) {
        Work w = gemm(c, c.tensor(0), c.tensor(1), null, 2);
        if (w == null) {
            return null;
        }
        Double outBytes = scalarTypeBytes(c.integer(6));
        double scales = bytesOf(c.tensor(2)) + bytesOf(c.tensor(3)) + bytesOf(c.tensor(4)) + bytesOf(c.tensor(5));
        Work out = withOutput(w, c.tensor(0), c.tensor(1), outBytes == null ? Precision.elementBytes(c.tensor(0).type()) : outBytes);
        return new Work(out.family(), out.precision(), out.flops(), out.bytes() + scales);
    }

    /** vLLM's {@code cutlass_scaled_mm(out[M,N], a[M,K], b[K,N], a_scales, b_scales, bias)}: every tensor once. */
    private static Work cutlassScaledMm(OpCall c) {
        Arg out = c.tensor(0);
        Arg a = c.tensor(1);
        Arg b = c.tensor(2);
        if (out == null || a == null || b == null || a.rank() != 2 || b.rank() != 2 || out.rank() != 2
                || a.dim(0) != out.dim(0) || b.dim(1) != out.dim(1) || a.dim(1) != b.dim(0)) {
            return null;
        }
        return new Work("gemm", Precision.ofType(a.type()), 2.0 * a.dim(0) * b.dim(1) * a.dim(1), tensorBytes(c));
    }

    /** The same work with the output [M, N] written at {@code outElementBytes} instead of a's type. */
    private static Work withOutput(Work w, Arg a, Arg b, double outElementBytes) {
        double m = a.dim(-2);
        double n = b.dim(-1);
        return new Work(w.family(), w.precision(), w.flops(), a.bytes() + b.bytes() + m * n * outElementBytes);
    }

    // ---- attention ----------------------------------------------------------------------------------

    /** Where batch, heads and sequence sit in q, k, v. */
    private enum Layout { BHSD, BSHD }

    /** How a causal mask aligns when the query is shorter than the keys. */
    enum Mask { TOP_LEFT, BOTTOM_RIGHT, BY_TYPE }

    /**
     * q, k, v as 4-D tensors (args 0-2): 2·B·H·pairs·(D_qk + D_v) FLOPs, where pairs counts the
     * (query, key) pairs the mask lets through (Sq·Sk without a mask); bytes q + k + v + the output
     * [B, H, Sq, D_v]. Grouped-query attention: H is the query heads. Variable-length (packed 3-D)
     * inputs carry no per-sequence lengths: no model.
     */
    private static Work attention(OpCall c, Layout layout, int causalArg, Mask mask) {
        Arg q = c.tensor(0);
        Arg k = c.tensor(1);
        Arg v = c.tensor(2);
        if (q == null || k == null || v == null || q.rank() != 4 || k.rank() != 4 || v.rank() != 4) {
            return null;
        }
        int headDim = layout == Layout.BHSD ? 1 : 2;
        int seqDim = layout == Layout.BHSD ? 2 : 1;
        long b = q.dim(0);
        long h = q.dim(headDim);
        long sq = q.dim(seqDim);
        long sk = k.dim(seqDim);
        long dqk = q.dim(3);
        long dv = v.dim(3);
        Mask applied;
        if (mask == Mask.BY_TYPE) {
            Long type = c.integer(causalArg); // xformers' custom_mask_type: 0 none, 1 top-left, 2 bottom-right
            if (type == null) {
                return null;
            }
            applied = type == 0 ? null : type == 1 ? Mask.TOP_LEFT : Mask.BOTTOM_RIGHT;
        } else {
            Boolean causal = c.flag(causalArg);
            if (causal == null) {
                return null;
            }
            applied = causal ? mask : null;
        }
        double pairs = pairs(sq, sk, applied);
        double out = (double) b * h * sq * dv * Precision.elementBytes(q.type());
        return new Work("attention", Precision.ofType(q.type()), 2.0 * b * h * pairs * (dqk + dv),
                q.bytes() + k.bytes() + v.bytes() + out);
    }

    /** (query, key) pairs under a mask; null mask: all Sq·Sk. */
    static double pairs(long sq, long sk, Mask mask) {
        if (mask == null) {
            return (double) sq * sk;
        }
        // Row i (from 0) sees keys 0..i (top-left) or 0..i + Sk - Sq (bottom-right), within 0..Sk-1.
        long offset = mask == Mask.TOP_LEFT ? 0 : sk - sq;
        double total = 0;
        for (long i = 0; i < sq; i++) {
            total += Math.max(0, Math.min(sk, i + offset + 1));
        }
        return total;
    }

    // ---- memory-bound ops ---------------------------------------------------------------------------

    /** x (arg 0) read and the normalized x written, plus the affine tensors (weight, bias) at {@code affine}. */
    private static Work norm(OpCall c, int... affine) {
        Arg x = c.tensor(0);
        if (x == null) {
            return null;
        }
        double bytes = 2 * x.bytes();
        for (int i : affine) {
            bytes += bytesOf(c.tensor(i));
        }
        return new Work("norm", null, null, bytes);
    }

    /** vLLM's fused_add_rms_norm(x, residual, weight, eps): x and residual read and written, weight read. */
    private static Work fusedAddRmsNorm(OpCall c) {
        Arg x = c.tensor(0);
        Arg residual = c.tensor(1);
        if (x == null || residual == null) {
            return null;
        }
        return new Work("norm", null, null, 2 * x.bytes() + 2 * residual.bytes() + bytesOf(c.tensor(2)));
    }

    /** An op whose every tensor argument is read or written once (vLLM's out-argument kernels). */
    private static Work sumOfTensors(OpCall c, String family) {
        double bytes = tensorBytes(c);
        return bytes == 0 ? null : new Work(family, null, null, bytes);
    }

    /** One tensor in, one of the same shape and type out. */
    private static Work unary(OpCall c, String family) {
        Arg x = c.tensor(0);
        return x == null ? null : new Work(family, null, null, 2 * x.bytes());
    }

    /**
     * Tensor operands read once each, the broadcast result written once at the widest operand's element
     * size (a Python scalar operand does not widen it); in-place variants write into the first.
     */
    private static Work elementwise(OpCall c) {
        long[] shape = new long[0];
        double widest = 0;
        double read = 0;
        for (Arg a : c.args()) {
            if (a.isTensor()) {
                shape = broadcast(shape, a.dims());
                widest = Math.max(widest, Precision.elementBytes(a.type()));
                read += a.bytes();
            }
        }
        if (widest == 0) {
            return null;
        }
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        return new Work("elementwise", null, null, read + n * widest);
    }

    /** copy_(dst, src): src read, dst written, each at its own type (a dtype cast is a copy). */
    private static Work copy(OpCall c) {
        Arg dst = c.tensor(0);
        Arg src = c.tensor(1);
        if (dst == null || src == null) {
            return null;
        }
        return new Work("elementwise", null, null, dst.bytes() + src.bytes());
    }

    /** fill_ / zero_: the tensor written, nothing read. */
    private static Work writeOnly(OpCall c) {
        Arg x = c.tensor(0);
        return x == null ? null : new Work("elementwise", null, null, x.bytes());
    }

    private static long[] broadcast(long[] a, long[] b) {
        int n = Math.max(a.length, b.length);
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            long da = i < n - a.length ? 1 : a[i - (n - a.length)];
            long db = i < n - b.length ? 1 : b[i - (n - b.length)];
            if (da != db && da != 1 && db != 1) {
                throw new IllegalArgumentException("shapes do not broadcast");
            }
            out[i] = Math.max(da, db);
        }
        return out;
    }

    private static double tensorBytes(OpCall c) {
        double bytes = 0;
        for (Arg a : c.args()) {
            bytes += a.bytes();
        }
        return bytes;
    }

    /**
     * Element size of a {@code torch.dtype} passed as an argument: record_shapes writes its c10::ScalarType
     * code (c10/core/ScalarType.h: 0 uint8 ... 5 half, 6 float, 15 bfloat16, 23-26 the fp8 types).
     */
    static Double scalarTypeBytes(Long code) {
        if (code == null) {
            return null;
        }
        return switch (code.intValue()) {
            case 0, 1, 11, 12, 13, 23, 24, 25, 26 -> 1.0;
            case 2, 5, 15 -> 2.0;
            case 3, 6, 14 -> 4.0;
            case 4, 7, 9 -> 8.0;
            case 10 -> 16.0;
            default -> null;
        };
    }

    private static double bytesOf(Arg a) {
        return a == null ? 0 : a.bytes();
    }
}
