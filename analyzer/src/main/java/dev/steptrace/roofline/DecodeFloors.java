package dev.steptrace.roofline;

import dev.steptrace.report.BottleneckReport.ModelFloor;
import dev.steptrace.report.Fmt;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The speed of light of one decode step on one GPU, per kernel category, from a {@link ModelSpec}: the
 * bytes each category must read (weights, KV cache, collective traffic) and the FLOPs it must do, and
 * hence the least time it can take on this device: max(bytes / memory bandwidth, FLOPs / peak) for the
 * GPU's own work, bus bytes / one direction of the link for collectives. docs/roofline.md derives
 * each formula. Bytes are weights and caches only: activations of a decode step are a rounding error
 * beside them.
 */
public final class DecodeFloors {
    private DecodeFloors() {}

    /** Floors by category id, for the categories the model says something about. */
    public static Map<String, ModelFloor> of(ModelSpec m, DevicePeaks.Device device) {
        Map<String, ModelFloor> out = new LinkedHashMap<>();
        long b = m.workload().batch();
        if (m.moe() != null) {
            out.put("moe_gemm", moe(m, device, b));
        }
        out.put("gemm", dense(m, device, b));
        out.put("attention", attention(m, device, b));
        long tp = m.parallel().tp();
        double act = m.activationBits() / 8;
        if (tp > 1) {
            long count = m.collectives().allreducesPerLayer() * m.layers() + m.collectives().extraAllreduces();
            if (count > 0) {
                double msg = b * m.hiddenSize() * act;
                double bus = count * msg * 2.0 * (tp - 1) / tp;
                out.put("allreduce", link("allreduce", bus, device, String.format(Locale.ROOT,
                        "%d all-reduces (%d per layer x %d layers + %d) of %s (batch %d x hidden %d at %s bits), "
                                + "ring bus traffic 2(n-1)/n at n = %d",
                        count, m.collectives().allreducesPerLayer(), m.layers(), m.collectives().extraAllreduces(),
                        bytes(msg), b, m.hiddenSize(), num(m.activationBits()), tp)));
            }
            if (m.collectives().logitsAllGather()) {
                double gathered = b * m.vocabSize() * act;
                out.put("comm_other", link("comm_other", gathered * (tp - 1) / tp, device, String.format(Locale.ROOT,
                        "the logits all-gather: %s (batch %d x vocab %d at %s bits), bus traffic (n-1)/n at n = %d",
                        bytes(gathered), b, m.vocabSize(), num(m.activationBits()), tp)));
            }
        }
        return out;
    }

    /**
     * Routed experts: each MoE layer reads the experts its tokens picked. With uniform routing, B tokens
     * of top-k among E experts touch E·(1 - (1 - k/E)^B) distinct experts (k at batch 1); this GPU holds
     * E/ep of them, each sharded over tp/ep GPUs. Shared experts are dense weights (see {@link #dense}).
     */
    private static ModelFloor moe(ModelSpec m, DevicePeaks.Device device, long b) {
        ModelSpec.Moe e = m.moe();
        long ep = m.parallel().ep();
        long moeTp = m.parallel().tp() / ep;
        double inter = (double) e.intermediateSize() / moeTp;
        double params = 3.0 * m.hiddenSize() * inter; // gate, up and down projections
        double scales = e.groupSize() == null ? 0 : params / e.groupSize();
        double perExpert = params * e.weightBits() / 8 + scales * e.scaleBits() / 8;
        double touched = (double) e.experts() / ep * (1 - Math.pow(1 - (double) e.topK() / e.experts(), b));
        double bytes = e.layers() * touched * perExpert;
        double flops = e.layers() * 2.0 * b * e.topK() / ep * params;
        String scaleText = e.groupSize() == null ? "" : String.format(Locale.ROOT, " + a %s-bit scale per %d",
                num(e.scaleBits()), e.groupSize());
        return gpu("moe_gemm", bytes, flops, m.compute(), device, String.format(Locale.ROOT,
                "%d MoE layers x %s experts read per layer on this GPU (top-%d of %d, batch %d%s) x %s per expert "
                        + "(3 x %d x %s weights at %s bits%s)",
                e.layers(), num(touched), e.topK(), e.experts(), b, ep > 1 ? ", expert parallel " + ep : "",
                bytes(perExpert), m.hiddenSize(), num(inter), num(e.weightBits()), scaleText));
    }

    /** Every dense weight this GPU holds, read once per step: attention projections, router, shared experts, dense MLPs, lm head. */
    private static ModelFloor dense(ModelSpec m, DevicePeaks.Device device, long b) {
        long tp = m.parallel().tp();
        long h = m.hiddenSize();
        ModelSpec.Attention a = m.attention();
        double attn;
        String attnText;
        if (a.mla()) {
            double qk = a.qkNopeHeadDim() + a.qkRopeHeadDim();
            double q = a.qLoraRank() == null ? h * a.heads() * qk / tp
                    : (double) h * a.qLoraRank() + (double) a.qLoraRank() * a.heads() * qk / tp;
            double kv = (double) h * (a.kvLoraRank() + a.qkRopeHeadDim())
                    + (double) a.kvLoraRank() * a.heads() * (a.qkNopeHeadDim() + a.vHeadDim()) / tp;
            double o = (double) a.heads() * a.vHeadDim() * h / tp;
            attn = q + kv + o;
            attnText = "MLA projections (the latent down-projections whole on every GPU, the rest split " + tp + " ways)";
        } else {
            // Heads split over the GPUs; KV heads too, down to one per GPU (then replicated).
            double heads = (double) a.heads() / tp;
            double kvHeads = Math.max(1.0, (double) a.kvHeads() / tp);
            attn = h * (heads + 2 * kvHeads) * a.headDim() + heads * a.headDim() * h;
            attnText = "QKV and output projections (" + num(heads) + " heads, " + num(kvHeads) + " KV heads per GPU)";
        }
        double perLayer = attn;
        double layerParams = m.layers() * attn;
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "%d layers x %s %s", m.layers(),
                count(perLayer), attnText));
        ModelSpec.Moe e = m.moe();
        long moeLayers = e == null ? 0 : e.layers();
        if (e != null) {
            double router = (double) h * e.experts();
            double shared = e.sharedExperts() * 3.0 * h * e.sharedSize() / tp;
            layerParams += moeLayers * (router + shared);
            text.append(String.format(Locale.ROOT, "; %d MoE layers x (router %s + %d shared expert(s) %s)",
                    moeLayers, count(router), e.sharedExperts(), count(shared)));
        }
        if (m.layers() > moeLayers) {
            double mlp = 3.0 * h * m.denseMlp() / tp;
            layerParams += (m.layers() - moeLayers) * mlp;
            text.append(String.format(Locale.ROOT, "; %d dense MLP layers x %s", m.layers() - moeLayers, count(mlp)));
        }
        double lmHead = (double) h * m.vocabSize() / tp;
        double params = layerParams + lmHead;
        text.append(String.format(Locale.ROOT, "; lm head %s: %s weights at %s bits", count(lmHead), count(params),
                num(m.weightBits())));
        return gpu("gemm", params * m.weightBits() / 8, 2.0 * b * params, m.compute(), device, text.toString());
    }

    /** The KV cache each sequence's attention reads, and the score and value products over it. */
    private static ModelFloor attention(ModelSpec m, DevicePeaks.Device device, long b) {
        ModelSpec.Attention a = m.attention();
        long tp = m.parallel().tp();
        long ctx = m.workload().context();
        double kvBytes;
        double flops;
        double heads = Math.max(1.0, (double) a.heads() / tp);
        String text;
        if (a.mla()) {
            // The latent cache (kv_lora + rope per token) is whole on every GPU; scores over it, values from it.
            double perToken = a.kvLoraRank() + a.qkRopeHeadDim();
            kvBytes = m.layers() * (double) b * ctx * perToken * m.kvCacheBits() / 8;
            flops = m.layers() * 2.0 * b * heads * ctx * (perToken + a.kvLoraRank());
            text = String.format(Locale.ROOT, "%d layers x batch %d x %d tokens x %s latent values per token at %s bits",
                    m.layers(), b, ctx, num(perToken), num(m.kvCacheBits()));
        } else {
            double kvHeads = Math.max(1.0, (double) a.kvHeads() / tp);
            kvBytes = m.layers() * (double) b * ctx * 2 * kvHeads * a.headDim() * m.kvCacheBits() / 8;
            flops = m.layers() * 4.0 * b * heads * ctx * a.headDim();
            text = String.format(Locale.ROOT, "%d layers x batch %d x %d tokens x K and V x %s KV heads x %d at %s bits",
                    m.layers(), b, ctx, num(kvHeads), a.headDim(), num(m.kvCacheBits()));
        }
        return gpu("attention", kvBytes, flops, m.compute(), device, text);
    }

    private static ModelFloor gpu(String category, double bytes, double flops, Precision p, DevicePeaks.Device device,
                             String text) {
        Double hbm = device == null ? null : device.hbmGbps();
        Double peak = device == null ? null : device.tflops(p);
        if (hbm == null) {
            return new ModelFloor(category, bytes, flops, null, null, text + " = " + bytes(bytes) + "; memory bandwidth unknown");
        }
        double memoryMs = bytes / hbm / 1e6;
        double computeMs = peak == null ? 0 : flops / peak / 1e9;
        boolean compute = computeMs > memoryMs;
        String how = compute
                ? String.format(Locale.ROOT, "; %s FLOPs at %s TFLOP/s (%s) take longer than %s at %s GB/s",
                        count(flops), num(peak), p.id(), bytes(bytes), num(hbm))
                : String.format(Locale.ROOT, " = %s at %s GB/s", bytes(bytes), num(hbm));
        return new ModelFloor(category, bytes, flops, Math.max(memoryMs, computeMs), compute ? "compute" : "memory", text + how);
    }

    private static ModelFloor link(String category, double busBytes, DevicePeaks.Device device, String text) {
        Double oneWay = device == null ? null : device.linkGbpsOneWay();
        if (oneWay == null) {
            return new ModelFloor(category, busBytes, 0, null, null, text + "; interconnect bandwidth unknown");
        }
        return new ModelFloor(category, busBytes, 0, busBytes / oneWay / 1e6, "interconnect", String.format(Locale.ROOT,
                "%s: %s of bus traffic at %s GB/s (one direction of %s)", text, bytes(busBytes), num(oneWay),
                device.interconnect() == null ? "the link" : device.interconnect()));
    }

    private static String bytes(double b) {
        return Fmt.si(b, "B");
    }

    private static String count(double n) {
        return Fmt.si(n, "");
    }

    private static String num(double v) {
        return Fmt.significant(v);
    }

}
