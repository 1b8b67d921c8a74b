package dev.steptrace.report;

import java.awt.Color;
import java.util.List;

/**
 * The headline categories (docs/taxonomy.md) as the reports show them: id, label, order, and a fixed color per
 * category (the same in every chart, table swatch and report, so a color means one thing everywhere).
 */
public final class ReportCategories {
    private ReportCategories() {}

    /** A headline category: id and label from the taxonomy's category table, color as {@code #rrggbb}. */
    public record Category(String id, String label, String color) {}

    /** One color per headline category, in {@link dev.steptrace.classify.Category} order. */
    private static final List<String> COLORS =
            List.of("#d62728", "#ff7f0e", "#1f77b4", "#9467bd", "#2ca02c", "#8c564b", "#e377c2", "#7f7f7f");

    /** In category order; ids and labels are the taxonomy's. */
    public static final List<Category> HEADLINE = java.util.stream.IntStream
            .range(0, dev.steptrace.classify.Category.values().length)
            .mapToObj(i -> new Category(dev.steptrace.classify.Category.values()[i].id(),
                    dev.steptrace.classify.Category.values()[i].label(), COLORS.get(i)))
            .toList();

    /** Colors for ids outside the headline categories (a user taxonomy's own), cycled by hash. */
    private static final List<String> EXTRA_COLORS = List.of("#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a");

    /** The category's position among the headline categories; ids outside it sort after, by id. */
    public static int order(String id) {
        for (int i = 0; i < HEADLINE.size(); i++) {
            if (HEADLINE.get(i).id().equals(id)) {
                return i;
            }
        }
        return HEADLINE.size();
    }

    /** The headline label for {@code id}; else {@code fallback}; else the id itself. */
    public static String label(String id, String fallback) {
        for (Category c : HEADLINE) {
            if (c.id().equals(id)) {
                return c.label();
            }
        }
        return fallback != null && !fallback.isBlank() ? fallback : String.valueOf(id);
    }

    public static String color(String id) {
        for (Category c : HEADLINE) {
            if (c.id().equals(id)) {
                return c.color();
            }
        }
        return EXTRA_COLORS.get(Math.floorMod(String.valueOf(id).hashCode(), EXTRA_COLORS.size()));
    }

    public static Color awtColor(String id) {
        return Color.decode(color(id));
    }

    /** A label short enough for a chart legend: the part before a parenthesis when the label is long. */
    public static String chartLabel(String label) {
        if (label.length() <= 28) {
            return label;
        }
        int paren = label.indexOf(" (");
        return paren > 0 ? label.substring(0, paren) : label.substring(0, 27) + "…";
    }
}
