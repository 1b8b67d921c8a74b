package dev.steptrace.testsupport;

import dev.steptrace.analysis.CaptureRules;
import dev.steptrace.rules.Rule;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs a rule's evidence query (docs/warnings.md) as a user would: its capture id and analysis key
 * replaced by those of the capture at hand.
 */
public final class RuleEvidence {
    private RuleEvidence() {}

    /** The registered rule with that id. */
    public static Rule rule(String id) {
        return CaptureRules.catalogue().stream().filter(r -> r.id().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError("no registered rule " + id));
    }

    /** The query of {@code rule} for capture {@code captureId} and analysis {@code key}. */
    public static String query(Rule rule, int captureId, String key) {
        return rule.evidence().replaceAll("capture_id = 1\\b", "capture_id = " + captureId)
                .replace("analysis_key = 'default'", "analysis_key = '" + key + "'");
    }

    /**
     * The evidence rows, each its columns joined by {@code |}: numbers with a fraction to 2 decimals,
     * null as {@code NULL}.
     */
    public static List<String> rows(Connection c, String ruleId, int captureId, String key) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query(rule(ruleId), captureId, key))) {
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
