package dev.steptrace.synth.model;

import java.util.Arrays;
import java.util.List;

/**
 * The named workloads {@code steptrace synth --preset} knows. A preset fixes the model and how decode
 * steps are launched; ranks, steps, batch and scales come from the command line.
 */
public enum Preset {
    /** vLLM decode replayed from CUDA graphs: one {@code cudaGraphLaunch} correlation per step. */
    MOE_TP8_GRAPH("moe-tp8-graph", true),
    /** The same model launched eagerly: every kernel has its own launch, cpu_op and External id. */
    MOE_TP8_EAGER("moe-tp8-eager", false);

    private final String id;
    private final boolean cudaGraph;

    Preset(String id, boolean cudaGraph) {
        this.id = id;
        this.cudaGraph = cudaGraph;
    }

    public String id() {
        return id;
    }

    /** The step templates of this preset, prefill first, with the model's first {@code layers} layers. */
    public List<StepTemplate> templates(int ranks, int batch, int layers) {
        MoeModel model = new MoeModel(ranks, batch, layers);
        return List.of(model.prefill(), model.decode(cudaGraph));
    }

    /** The preset with this id, or {@code null}. */
    public static Preset byId(String id) {
        return Arrays.stream(values()).filter(p -> p.id.equals(id)).findFirst().orElse(null);
    }

    public static List<String> ids() {
        return Arrays.stream(values()).map(Preset::id).toList();
    }
}
