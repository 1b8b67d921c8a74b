package dev.steptrace.whatif;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * What a projection changes (docs/whatif.md, "Changes"): durations of kernels by category or name, collectives'
 * bus bandwidth, the cost of launching, the ranks' pace, the CPU's speed. An empty set projects the capture as
 * it is (its replay gives back its own step times).
 *
 * @param scaleCategory  "category" or "category/subcategory" to a factor of the kernels' durations (0 removes them)
 * @param scaleKernels   a regular expression over kernel names to a factor (the first that matches applies)
 * @param busbwGbps      a collective type (allreduce, all_gather, ...) to a bus bandwidth in GB/s: its transfer
 *                       re-timed from its message size
 * @param launchOverheadUs the CPU cost of each launch within a run of launches, µs (null: as captured)
 * @param noStraggler    every rank's own work at the fastest rank's pace
 * @param cpuScale       a factor of the CPU work between calls
 */
public record Changes(Map<String, Double> scaleCategory, Map<Pattern, Double> scaleKernels,
                      Map<String, Double> busbwGbps, Double launchOverheadUs, boolean noStraggler, double cpuScale) {

    public static final Changes NONE = new Changes(Map.of(), Map.of(), Map.of(), null, false, 1.0);

    public Changes {
        scaleCategory = Map.copyOf(scaleCategory);
        scaleKernels = new LinkedHashMap<>(scaleKernels);
        busbwGbps = Map.copyOf(busbwGbps);
    }

    /** Whether anything changes. */
    public boolean isEmpty() {
        return scaleCategory.isEmpty() && scaleKernels.isEmpty() && busbwGbps.isEmpty() && launchOverheadUs == null
                && !noStraggler && cpuScale == 1.0;
    }

    /** The factor of a kernel's duration: its name's, else its category/subcategory's, else its category's, else 1. */
    double scale(String name, String category, String subcategory) {
        if (name != null) {
            for (Map.Entry<Pattern, Double> e : scaleKernels.entrySet()) {
                if (e.getKey().matcher(name).find()) {
                    return e.getValue();
                }
            }
        }
        if (scaleCategory.isEmpty()) {
            return 1.0;
        }
        Double f = scaleCategory.get(category + "/" + subcategory);
        if (f == null) {
            f = scaleCategory.get(category);
        }
        return f == null ? 1.0 : f;
    }

    /** The changes in words, one per item, for outputs. */
    public List<String> describe() {
        List<String> out = new ArrayList<>();
        scaleCategory.forEach((k, v) -> out.add("--scale " + k + "=" + plain(v)));
        scaleKernels.forEach((k, v) -> out.add("--scale-kernels " + k.pattern() + "=" + plain(v)));
        busbwGbps.forEach((k, v) -> out.add("--busbw " + k + "=" + plain(v)));
        if (launchOverheadUs != null) {
            out.add("--launch-overhead " + plain(launchOverheadUs));
        }
        if (noStraggler) {
            out.add("--no-straggler");
        }
        if (cpuScale != 1.0) {
            out.add("--cpu-scale " + plain(cpuScale));
        }
        return out;
    }

    private static String plain(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%s", v);
    }

    /** {@code KEY=F} with F a number at least 0: the key and the factor; a usage error names the option. */
    public static Map.Entry<String, Double> keyValue(String option, String text) {
        int eq = text.lastIndexOf('=');
        if (eq <= 0 || eq == text.length() - 1) {
            throw new IllegalArgumentException(option + " takes KEY=NUMBER, not '" + text + "'");
        }
        double v;
        try {
            v = Double.parseDouble(text.substring(eq + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + ": '" + text.substring(eq + 1) + "' is not a number");
        }
        if (!(v >= 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(option + ": " + text.substring(eq + 1) + " must be a number at least 0");
        }
        return Map.entry(text.substring(0, eq), v);
    }

    /** A kernel-name pattern of {@code --scale-kernels}, compiled (a usage error when it is not a regex). */
    public static Pattern pattern(String regex) {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("--scale-kernels: not a regular expression: " + regex);
        }
    }
}
