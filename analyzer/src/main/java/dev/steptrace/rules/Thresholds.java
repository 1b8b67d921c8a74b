package dev.steptrace.rules;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The thresholds rules run with: each rule's defaults, with overrides written
 * {@code RULE.NAME=VALUE} on top. Overrides are checked against the rules when
 * parsed, so a misspelt rule or threshold name is a usage error, not a silently ignored option.
 */
public final class Thresholds {
    private static final Thresholds DEFAULTS = new Thresholds(Map.of());

    private final Map<String, Double> overrides;

    private Thresholds(Map<String, Double> overrides) {
        this.overrides = Map.copyOf(overrides);
    }

    /** Every rule's default thresholds. */
    public static Thresholds defaults() {
        return DEFAULTS;
    }

    /**
     * Parses {@code RULE.NAME=VALUE} overrides against the known rules.
     *
     * @throws IllegalArgumentException naming the first override that is malformed, or names no rule
     *                                  or threshold of {@code rules}, or whose value is not a finite number
     */
    public static Thresholds parse(List<String> specs, Collection<Rule> rules) {
        Map<String, Double> out = new TreeMap<>();
        for (String spec : specs) {
            int eq = spec.indexOf('=');
            int dot = spec.indexOf('.');
            if (eq < 0 || dot < 0 || dot > eq) {
                throw new IllegalArgumentException("'" + spec + "' is not RULE.NAME=VALUE (e.g. clock_offset.offset_us=500)");
            }
            String id = spec.substring(0, dot);
            String name = spec.substring(dot + 1, eq);
            Rule rule = rules.stream().filter(r -> r.id().equals(id)).findFirst().orElseThrow(() ->
                    new IllegalArgumentException("'" + spec + "': no rule " + id + " (docs/warnings.md lists them)"));
            if (rule.threshold(name).isEmpty()) {
                throw new IllegalArgumentException("'" + spec + "': rule " + id + " has "
                        + (rule.thresholds().isEmpty() ? "no thresholds" : "no threshold " + name + " (it has "
                        + String.join(", ", rule.thresholds().stream().map(Threshold::name).toList()) + ")"));
            }
            double value;
            try {
                value = Double.parseDouble(spec.substring(eq + 1));
            } catch (NumberFormatException e) {
                value = Double.NaN;
            }
            if (!Double.isFinite(value)) {
                throw new IllegalArgumentException("'" + spec + "': the value is not a number");
            }
            if (value == rule.threshold(name).get().defaultValue()) {
                out.remove(id + "." + name); // the default: the same analysis as without the override
            } else {
                out.put(id + "." + name, value);
            }
        }
        return new Thresholds(out);
    }

    /** Whether every threshold has its default value. */
    public boolean isDefault() {
        return overrides.isEmpty();
    }

    /**
     * The overrides as text, {@code RULE.NAME=VALUE} sorted by name and joined by {@code ,}: the same for
     * the same values however they were written ({@code 500} and {@code 500.0}); empty for the defaults.
     */
    public String text() {
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(overrides).forEach((k, v) -> sb.append(sb.isEmpty() ? "" : ",").append(k).append('=').append(v));
        return sb.toString();
    }

    /** The value of {@code rule}'s threshold {@code name}: the override, else its default. */
    public double get(Rule rule, String name) {
        Threshold t = rule.threshold(name).orElseThrow(() ->
                new IllegalArgumentException("rule " + rule.id() + " has no threshold " + name));
        return overrides.getOrDefault(rule.id() + "." + name, t.defaultValue());
    }
}
