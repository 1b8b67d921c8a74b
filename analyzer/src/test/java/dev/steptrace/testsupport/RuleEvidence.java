package dev.steptrace.testsupport;

import dev.steptrace.quality.CaptureRules;
import dev.steptrace.rules.Rule;
import dev.steptrace.store.KeptAnalysis;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs a rule's evidence query (docs/warnings.md) as a user would: the statement a warning of it carries in
 * report.json, its capture id and analysis key written as literals, run as it is.
 */
public final class RuleEvidence {
    private RuleEvidence() {}

    /** The registered rule with that id. */
    public static Rule rule(String id) {
        return CaptureRules.catalogue().stream().filter(r -> r.id().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError("no registered rule " + id));
    }

    /** The evidence statement of rule {@code ruleId} for capture {@code captureId} and analysis {@code key}. */
    public static String query(Connection c, String ruleId, int captureId, String key) {
        return new KeptAnalysis(c, captureId, key).evidence(rule(ruleId).evidence(), Map.of());
    }

    /** The evidence rows of rule {@code ruleId} for a capture and analysis key, as {@link #rows(Connection, String)}. */
    public static List<String> rows(Connection c, String ruleId, int captureId, String key) throws SQLException {
        return rows(c, query(c, ruleId, captureId, key));
    }

    /**
     * The rows of a statement, each its columns joined by {@code |}: numbers with a fraction to 2 decimals,
     * null as {@code NULL}.
     */
    public static List<String> rows(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    Object v = rs.getObject(i);
                    row.add(v == null ? "NULL" : v instanceof Double || v instanceof Float || v instanceof BigDecimal
                            ? String.format(Locale.ROOT, "%.2f", ((Number) v).doubleValue()) : rs.getString(i));
                }
                out.add(String.join("|", row));
            }
        }
        return out;
    }
}
