package dev.steptrace.spark;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Two report.json trees compared whole (the warnings too): numbers equal to 1e-9 relative (sums taken in
 * another order differ in the last bits), everything else exactly, except what names where and when a report
 * was made, and the capture's id in a warning's evidence (each store numbers its captures: Spark's has one).
 */
final class ReportTrees {
    /** Fields that say where the traces were, or which build wrote the report: not figures. */
    private static final Set<String> NOT_COMPARED = Set.of("/tool/version", "/capture/path");

    private ReportTrees() {}

    /** The codes of a report's warnings, in order. */
    static List<String> warningCodes(JsonNode report) {
        List<String> codes = new ArrayList<>();
        report.path("warnings").forEach(w -> codes.add(w.get("code").asText()));
        return codes;
    }

    private static String withoutCaptureId(String evidence) {
        return evidence.replaceAll("capture_id = \\d+", "capture_id = ?");
    }

    /** Adds a line to {@code differences} for each place where {@code b} differs from {@code a}. */
    static void compare(JsonNode a, JsonNode b, String at, List<String> differences) {
        if (NOT_COMPARED.contains(at) || at.matches("/capture/partial_files/\\d+/file")) {
            return;
        }
        if (a.isNumber() && b.isNumber()) {
            double x = a.asDouble();
            double y = b.asDouble();
            if (x != y && Math.abs(x - y) > 1e-9 * Math.max(Math.abs(x), Math.abs(y))) {
                differences.add(at + ": " + x + " vs " + y);
            }
        } else if (a.isObject() && b.isObject()) {
            Set<String> names = new TreeSet<>();
            a.fieldNames().forEachRemaining(names::add);
            b.fieldNames().forEachRemaining(names::add);
            for (String n : names) {
                if (!a.has(n) || !b.has(n)) {
                    differences.add(at + "/" + n + ": only in " + (a.has(n) ? "the first" : "the second"));
                } else {
                    compare(a.get(n), b.get(n), at + "/" + n, differences);
                }
            }
        } else if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) {
                differences.add(at + ": " + a.size() + " entries vs " + b.size());
                return;
            }
            Iterator<JsonNode> i = a.elements();
            Iterator<JsonNode> j = b.elements();
            for (int n = 0; i.hasNext(); n++) {
                compare(i.next(), j.next(), at + "/" + n, differences);
            }
        } else if (at.endsWith("/evidence") && a.isTextual() && b.isTextual()) {
            if (!withoutCaptureId(a.asText()).equals(withoutCaptureId(b.asText()))) {
                differences.add(at + ": " + a + " vs " + b);
            }
        } else if (!a.equals(b)) {
            differences.add(at + ": " + a + " vs " + b);
        }
    }
}
