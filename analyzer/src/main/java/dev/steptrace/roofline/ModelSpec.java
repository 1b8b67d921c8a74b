package dev.steptrace.roofline;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Set;

/**
 * A model file ({@code --model FILE}, docs/roofline.md): the architecture, its parallel layout and the
 * decode workload, from which {@link DecodeFloors} works out what each kernel category must read and
 * compute per decode step on one GPU. Sizes are counts of elements; bits are storage bits per element.
 *
 * @param file          where it was read from (for messages and the report)
 * @param compute       the precision the matrix math runs at (weights of fewer bits are widened to it)
 * @param denseMlp      intermediate size of the layers without MoE (null when every layer has MoE)
 * @param moe           null for a dense model
 * @param collectives   the tensor-parallel collectives of one decode step
 */
public record ModelSpec(String file, String name, String source, long hiddenSize, long layers, long vocabSize,
                        double weightBits, double kvCacheBits, double activationBits, Precision compute,
                        Attention attention, Long denseMlp, Moe moe, Parallel parallel, Workload workload,
                        Collectives collectives) {

    /** GQA (heads, kvHeads, headDim) or MLA (the latent ranks; vLLM's absorbed decode). */
    public record Attention(String type, long heads, Long kvHeads, Long headDim, Long qLoraRank, Long kvLoraRank,
                            Long qkNopeHeadDim, Long qkRopeHeadDim, Long vHeadDim) {
        public boolean mla() {
            return "mla".equals(type);
        }
    }

    /**
     * @param layers          layers with an MoE block
     * @param groupSize       weights per quantization scale (null: no scales)
     * @param sharedSize      intermediate size of a shared expert
     */
    public record Moe(long layers, long experts, long topK, long intermediateSize, long sharedExperts,
                      long sharedSize, double weightBits, Long groupSize, double scaleBits) {}

    /** Tensor parallel degree and expert parallel degree (experts split over {@code ep} of the {@code tp} GPUs). */
    public record Parallel(long tp, long ep) {}

    /** Sequences per decode step and the KV tokens each one's attention reads. */
    public record Workload(long batch, long context) {}

    public record Collectives(long allreducesPerLayer, long extraAllreduces, boolean logitsAllGather) {}

    private static final Set<String> TOP = Set.of("version", "name", "source", "hidden_size", "layers", "vocab_size",
            "weight_bits", "kv_cache_bits", "activation_bits", "compute", "attention", "dense_mlp", "moe", "parallel",
            "workload", "collectives");

    /** Reads and checks a model file; every problem is one message naming the file and the key. */
    public static ModelSpec read(Path file) {
        JsonNode root = YamlFiles.read(file, "model file");
        return of(root, "model file " + file, file.toString());
    }

    static ModelSpec of(JsonNode root, String origin, String file) {
        YamlFiles.onlyKeys(root, TOP, origin);
        Fields f = new Fields(root, origin);
        long hidden = f.count("hidden_size");
        long layers = f.count("layers");
        String computeId = f.text("compute", "bf16");
        Precision compute = Precision.ofId(computeId);
        if (compute == null) {
            throw new RooflineFileException(origin + ": compute must be bf16, fp16, fp8 or int8, not " + computeId);
        }
        Attention attention = attention(f.object("attention", true), origin + ": attention");
        JsonNode dense = f.object("dense_mlp", false);
        Long denseMlp = dense == null ? null : new Fields(dense, origin + ": dense_mlp").countOnly("intermediate_size");
        JsonNode moeNode = f.object("moe", false);
        Moe moe = moeNode == null ? null : moe(moeNode, origin + ": moe", layers);
        if (denseMlp == null && (moe == null || moe.layers() < layers)) {
            throw new RooflineFileException(origin + ": dense_mlp.intermediate_size is missing (needed for the "
                    + (moe == null ? layers : layers - moe.layers()) + " layers without MoE)");
        }
        JsonNode par = f.object("parallel", false);
        Fields p = par == null ? null : new Fields(par, origin + ": parallel");
        Parallel parallel = new Parallel(p == null ? 1 : p.count("tp", 1), p == null ? 1 : p.count("ep", 1));
        if (parallel.tp() % parallel.ep() != 0) {
            throw new RooflineFileException(origin + ": parallel.ep must divide parallel.tp");
        }
        if (moe != null && moe.experts() % parallel.ep() != 0) {
            throw new RooflineFileException(origin + ": parallel.ep must divide moe.experts");
        }
        Fields w = new Fields(f.object("workload", true), origin + ": workload");
        Workload workload = new Workload(w.count("batch"), w.count("context"));
        JsonNode col = f.object("collectives", false);
        Fields c = col == null ? null : new Fields(col, origin + ": collectives");
        Collectives collectives = new Collectives(c == null ? 2 : c.count("allreduces_per_layer", 2),
                c == null ? 1 : c.count("extra_allreduces", 1), c == null || c.flag("logits_all_gather", true));
        return new ModelSpec(file, f.text("name", file), f.text("source", null), hidden, layers, f.count("vocab_size"),
                f.bits("weight_bits", 16), f.bits("kv_cache_bits", 16), f.bits("activation_bits", 16), compute,
                attention, denseMlp, moe, parallel, workload, collectives);
    }

    private static Attention attention(JsonNode n, String where) {
        Fields f = new Fields(n, where);
        String type = f.text("type", "gqa");
        if (type.equals("gqa")) {
            YamlFiles.onlyKeys(n, Set.of("type", "heads", "kv_heads", "head_dim"), where);
            long heads = f.count("heads");
            return new Attention(type, heads, f.count("kv_heads", heads), f.count("head_dim"), null, null, null, null, null);
        }
        if (type.equals("mla")) {
            YamlFiles.onlyKeys(n, Set.of("type", "heads", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim",
                    "qk_rope_head_dim", "v_head_dim"), where);
            return new Attention(type, f.count("heads"), null, null, f.countOrNull("q_lora_rank"),
                    f.count("kv_lora_rank"), f.count("qk_nope_head_dim"), f.count("qk_rope_head_dim"), f.count("v_head_dim"));
        }
        throw new RooflineFileException(where + ": type must be gqa or mla, not " + type);
    }

    private static Moe moe(JsonNode n, String where, long layers) {
        YamlFiles.onlyKeys(n, Set.of("layers", "experts", "top_k", "intermediate_size", "shared_experts",
                "shared_intermediate_size", "weight_bits", "group_size", "scale_bits"), where);
        Fields f = new Fields(n, where);
        long moeLayers = f.count("layers", layers);
        if (moeLayers > layers) {
            throw new RooflineFileException(where + ": layers (" + moeLayers + ") exceeds the model's " + layers);
        }
        long experts = f.count("experts");
        long topK = f.count("top_k");
        if (topK > experts) {
            throw new RooflineFileException(where + ": top_k exceeds experts");
        }
        long inter = f.count("intermediate_size");
        return new Moe(moeLayers, experts, topK, inter, f.count("shared_experts", 0),
                f.count("shared_intermediate_size", inter), f.bits("weight_bits", 16), f.countOrNull("group_size"),
                f.bits("scale_bits", 16));
    }

    /** Typed access to one mapping's keys, errors naming the key. */
    private record Fields(JsonNode node, String where) {
        long count(String key) {
            Long v = countOrNull(key);
            if (v == null) {
                throw new RooflineFileException(where + ": " + key + " is missing");
            }
            return v;
        }

        long count(String key, long otherwise) {
            Long v = countOrNull(key);
            return v == null ? otherwise : v;
        }

        Long countOnly(String key) {
            YamlFiles.onlyKeys(node, Set.of(key), where);
            return count(key);
        }

        Long countOrNull(String key) {
            JsonNode v = node.get(key);
            if (v == null || v.isNull()) {
                return null;
            }
            if (!v.canConvertToExactIntegral() || v.asLong() < 1) {
                throw new RooflineFileException(where + ": " + key + " must be a whole number of at least 1, not " + v);
            }
            return v.asLong();
        }

        double bits(String key, double otherwise) {
            Double v = YamlFiles.positive(node, key, where);
            if (v != null && v > 64) {
                throw new RooflineFileException(where + ": " + key + " is bits per element, at most 64, not " + v);
            }
            return v == null ? otherwise : v;
        }

        String text(String key, String otherwise) {
            String v = YamlFiles.text(node, key, where);
            return v == null ? otherwise : v;
        }

        boolean flag(String key, boolean otherwise) {
            JsonNode v = node.get(key);
            if (v == null || v.isNull()) {
                return otherwise;
            }
            if (!v.isBoolean()) {
                throw new RooflineFileException(where + ": " + key + " must be true or false");
            }
            return v.asBoolean();
        }

        JsonNode object(String key, boolean required) {
            JsonNode v = node.get(key);
            if (v == null || v.isNull()) {
                if (required) {
                    throw new RooflineFileException(where + ": " + key + " is missing");
                }
                return null;
            }
            if (!v.isObject()) {
                throw new RooflineFileException(where + ": " + key + " must be a mapping");
            }
            return v;
        }
    }
}
