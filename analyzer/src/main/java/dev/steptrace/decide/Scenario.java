package dev.steptrace.decide;

import dev.steptrace.classify.TaxonomyRule;
import dev.steptrace.classify.Taxonomy;
import dev.steptrace.common.StepPart;
import dev.steptrace.report.Fmt;
import dev.steptrace.whatif.Changes;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A decision scenario (docs/scenarios.md): the question, the hardware facts, the constraints, the
 * measured inputs and the candidate options, each option's effect on the step given as data. Built
 * by {@link ScenarioParser}, which has already checked every field; {@code field} strings are the
 * paths in the file ({@code options[2].effect.scale}), so the memo can say where a number came from.
 *
 * @param source how to name the file in messages and in the memo ({@code scenario.yaml}, or
 *               {@code pcie-allreduce-tax (bundled)})
 */
public record Scenario(String id, String title, String source, Question question, Hardware hardware,
                       Map<String, String> constraints, Map<String, Measured> measured, List<Option> options) {
    public static final String SCHEMA = "steptrace.scenario/1";
    /**
     * The step time's parts a question's tax may name besides the kernel categories (docs/reports.md, "Step time"):
     * exposed communication, the wait for the slowest rank among it, and the GPU's idle time by cause.
     */
    public static final List<String> STEP_PARTS = Arrays.stream(StepPart.values())
            .filter(p -> p.kind() != StepPart.Kind.WORK).map(StepPart::id).toList();

    /**
     * Checks each {@code category/subcategory} the scenario names (the question's tax, the options' effects)
     * against the subcategories the taxonomy's rules give that category: a typo ({@code allreduce/custon})
     * would otherwise find no kernels and read as a tax of 0%. Categories were checked when it was parsed.
     *
     * @throws ScenarioException naming the field and the subcategories there are
     */
    public void checkSubcategories(Taxonomy taxonomy) {
        checkSubcategory(taxonomy, question.tax(), "question.tax");
        for (Option o : options) {
            if (o.effect().category() != null) {
                checkSubcategory(taxonomy, o.effect().category(), o.field() + ".effect.category");
            }
        }
    }

    private void checkSubcategory(Taxonomy taxonomy, String spec, String field) {
        int slash = spec.indexOf('/');
        if (slash < 0) {
            return;
        }
        String category = spec.substring(0, slash);
        String sub = spec.substring(slash + 1);
        SortedSet<String> known = new TreeSet<>();
        for (TaxonomyRule r : taxonomy.rules()) {
            if (r.category().id().equals(category)) {
                known.add(r.subcategory());
            }
        }
        if (!known.contains(sub)) {
            throw new ScenarioException(source + ": " + field + ": unknown subcategory \"" + sub + "\" of " + category
                    + " (the taxonomy's: " + String.join(", ", known) + ")");
        }
    }

    /**
     * @param tax              a category id ({@code allreduce}) or {@code category/subcategory}
     * @param minSpeedup       an admissible option must project at least this speedup to be pursued
     * @param batch            the batch size to assume when the capture does not say (null: unknown)
     * @param operatingBatches batch sizes the service runs at: an option measured slower at one of them is not admissible
     * @param premiseSharePct  the share of the phase's step the question says the tax takes (null: no premise)
     */
    public record Question(String text, String phase, String tax, double minSpeedup, Integer batch,
                           List<Integer> operatingBatches, Double premiseSharePct) {
        public String taxCategory() {
            int slash = tax.indexOf('/');
            return slash < 0 ? tax : tax.substring(0, slash);
        }

        public String taxSubcategory() {
            int slash = tax.indexOf('/');
            return slash < 0 ? null : tax.substring(slash + 1);
        }
    }

    /**
     * Hardware facts; any may be null when the scenario does not say.
     *
     * @param interconnect    {@code pcie}, {@code nvlink} or {@code xgmi}
     * @param captureStandsIn the capture was taken on other hardware on purpose: a mismatch of GPU model, count or
     *                        interconnect is reported, but the memo decides with the capture's numbers
     */
    public record Hardware(String gpu, Integer gpus, String interconnect, Double linkGbps, Double collectiveLatencyUs,
                           boolean captureStandsIn) {
        /** The interconnects a scenario can name. */
        public static final List<String> INTERCONNECTS = List.of("pcie", "nvlink", "xgmi");
    }

    /** A measured input: a table by batch size, or a burst timing of one collective. */
    public sealed interface Measured permits Table, Burst {
        String name();

        String source();
    }

    /**
     * A measurement by batch size. A range measurement ({@code [19, 25]}) keeps both ends; projections
     * use the high end (the option's worst case) and the memo shows the range.
     */
    public record Table(String name, String description, String unit, String source,
                        SortedMap<Integer, double[]> byBatch) implements Measured {
        /** The value used for projections at {@code batch} (the high end of a range), or null when not measured. */
        public Double at(int batch) {
            double[] v = byBatch.get(batch);
            return v == null ? null : v[1];
        }

        /** {@code 25} or {@code 19-25}. */
        public String text(int batch) {
            double[] v = byBatch.get(batch);
            if (v == null) {
                return null;
            }
            return v[0] == v[1] ? Fmt.plain(v[1]) : Fmt.plain(v[0]) + "-" + Fmt.plain(v[1]);
        }
    }

    /** {@code calls} back-to-back collectives of {@code messageBytes} each took {@code totalMs}. */
    public record Burst(String name, String description, String collective, int calls, Double messageBytes,
                        double totalMs, String source) implements Measured {
        public double perCallUs() {
            return totalMs * 1000 / calls;
        }
    }

    /**
     * A candidate option.
     *
     * @param index    its position in {@code options} (for {@code options[i]} in the memo)
     * @param violates names of {@link Scenario#constraints} the option breaks
     */
    public record Option(int index, String id, String title, Effect effect, List<String> violates, String evidence,
                         String revisitWhen) {
        public String field() {
            return "options[" + index + "]";
        }
    }

    /**
     * What an option does to the step. At most one of remove / scale / scaleBytes / replace / whatIf acts on
     * {@code category} (whatIf on what its changes name); addMs, stepScale and tokensPerStep apply to the whole step.
     *
     * @param category       the category (or category/subcategory) acted on; null: the question's tax
     * @param whatIf         changes the capture's steps are replayed under (docs/whatif.md): the projected step is the
     *                       replay's, beside Amdahl's bound
     * @param tokensPerStep  tokens each sequence gets per step (1 unless said); null with
     *                       {@code tokensPerStepUnknown}: the scenario says it is not measured yet
     */
    public record Effect(String category, boolean remove, Double scale, Double scaleBytes, Replace replace,
                         Double addMs, Double stepScale, Double tokensPerStep, boolean tokensPerStepUnknown,
                         String needsHardware, Changes whatIf) {}

    /**
     * Replaces {@code callsPerStep} calls of the category (null: all of them, at the capture's mean
     * time per call) by {@code byCallsPerStep} calls (null: as many) of another cost: a fixed
     * {@code perCallUs}, or a measured table read at the batch size.
     */
    public record Replace(Double callsPerStep, Double byCallsPerStep, Double perCallUs, String perCallTable,
                          String what) {}
}
