package dev.steptrace.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Lookups in a report.json that tests of the classification and of the capture-quality rules share. */
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

    /** The codes of the report's warnings, in its order. */
    public static List<String> warningCodes(JsonNode report) {
        List<String> codes = new ArrayList<>();
        report.get("warnings").forEach(w -> codes.add(w.get("code").asText()));
        return codes;
    }

    /** The report's warning {@code code}; an assertion error when it has none. */
    public static JsonNode warning(JsonNode report, String code) {
        for (JsonNode w : report.get("warnings")) {
            if (w.get("code").asText().equals(code)) {
                return w;
            }
        }
        throw new AssertionError("no warning " + code + " in " + report.get("warnings"));
    }
}
