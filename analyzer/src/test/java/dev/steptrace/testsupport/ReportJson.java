package dev.steptrace.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Map;

/** Lookups in a report.json that tests of the classification share. */
public final class ReportJson {
    private ReportJson() {}

    /** A phase's categories by id. */
    public static Map<String, JsonNode> categories(JsonNode phase) {
        Map<String, JsonNode> m = new HashMap<>();
        phase.get("categories").forEach(c -> m.put(c.get("id").asText(), c));
        return m;
    }

    /** A category's subcategory {@code id}; an assertion error when it has none. */
    public static JsonNode sub(JsonNode category, String id) {
        for (JsonNode s : category.get("subcategories")) {
            if (s.get("id").asText().equals(id)) {
                return s;
            }
        }
        throw new AssertionError("no subcategory " + id + " in " + category);
    }
}
