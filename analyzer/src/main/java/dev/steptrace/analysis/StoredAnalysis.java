package dev.steptrace.analysis;

import dev.steptrace.common.StepSource;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Thresholds;
import dev.steptrace.store.StoreCaptures;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One capture's analysis as the store keeps it (docs/schema.md, "The analysis"): the rows of the analysis
 * tables under (capture id, analysis key). The report, the diff, the decision memo and the API read
 * these rows through {@link #prepare}, never a second computation.
 *
 * @param connection a connection to the store
 * @param scope      the capture and its files
 * @param key        the analysis key ({@code analysis_key})
 * @param stepSource where the steps came from
 * @param warnings   capture-quality warnings, in order
 */
public record StoredAnalysis(Connection connection, CaptureScope scope, String key, StepSource stepSource,
                             List<Warning> warnings) {

    /**
     * The capture's analysis under {@code key}, when the store holds one made from the capture's current
     * files by this build; else null (none, or a stale one: it is to be made again).
     */
    public static StoredAnalysis find(Connection c, int captureId, AnalysisKey key, String build) throws SQLException {
        String source;
        try (PreparedStatement ps = c.prepareStatement("SELECT step_source FROM analyses WHERE capture_id = ?"
                + " AND analysis_key = ? AND files_key = ? AND taxonomy_digest = ? AND build = ?")) {
            ps.setInt(1, captureId);
            ps.setString(2, key.id());
            ps.setString(3, StoreCaptures.filesKey(c, captureId));
            ps.setString(4, key.taxonomy().digest());
            ps.setString(5, build);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                source = rs.getString(1);
            }
        }
        List<Warning> warnings = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT code, message FROM analysis_warnings"
                + " WHERE capture_id = ? AND analysis_key = ? ORDER BY ordinal")) {
            ps.setInt(1, captureId);
            ps.setString(2, key.id());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    warnings.add(CaptureRules.warning(rs.getString(1), rs.getString(2)));
                }
            }
        }
        return new StoredAnalysis(c, CaptureScope.load(c, captureId), key.id(), StepSource.of(source),
                List.copyOf(warnings));
    }

    /**
     * A capture's analysis whose tables were filled by another program than {@link CaptureAnalysis} (the
     * Spark application assembles them from its dataset, docs/spark.md): no {@code analyses} row; the step
     * source is the one {@code steps} names, the warnings those its tables give (see {@link #checked}).
     */
    public static StoredAnalysis assembled(Connection c, int captureId, String key) throws SQLException {
        String source;
        try (PreparedStatement ps = c.prepareStatement("SELECT min(source) FROM steps WHERE capture_id = ? AND analysis_key = ?")) {
            ps.setInt(1, captureId);
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                source = rs.getString(1);
            }
        }
        // Without steps the source is nowhere in a report (it is a phase's): any will do.
        return checked(new StoredAnalysis(c, CaptureScope.load(c, captureId), key,
                source == null ? StepSource.GAP : StepSource.of(source), List.of()), Thresholds.defaults());
    }

    /**
     * {@code analysis} with its warnings: the capture-quality rules ({@link CaptureRules}) and the launch-bound
     * check, run over its kept tables.
     */
    static StoredAnalysis checked(StoredAnalysis analysis, Thresholds thresholds) throws SQLException {
        List<Warning> warnings = new ArrayList<>(CaptureRules.check(analysis, thresholds));
        warnings.addAll(LaunchBoundRule.check(thresholds, HostBoundMetrics.summarize(analysis)));
        return new StoredAnalysis(analysis.connection(), analysis.scope(), analysis.key(), analysis.stepSource(),
                List.copyOf(warnings));
    }

    public int captureId() {
        return scope.captureId();
    }

    /**
     * A statement over the analysis tables whose parameters {@code $1} and {@code $2} are bound to this
     * capture and analysis key ({@code WHERE capture_id = $1 AND analysis_key = $2}); further parameters
     * are {@code $3}... in {@code more}.
     */
    public PreparedStatement prepare(String sql, Object... more) throws SQLException {
        PreparedStatement ps = connection.prepareStatement(sql);
        try {
            ps.setInt(1, scope.captureId());
            ps.setString(2, key);
            for (int i = 0; i < more.length; i++) {
                ps.setObject(3 + i, more[i]);
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    /**
     * Runs the query file {@code queries/NAME.sql} (beside {@link SqlStage}) over this analysis: its
     * {@code capture_id} and {@code analysis_key} are this capture and key, further parameters by name in
     * {@code more}; each row goes to {@code rows}.
     */
    public void query(String name, Map<String, ?> more, SqlStage.Rows rows) throws SQLException {
        Map<String, Object> parameters = new HashMap<>(more);
        parameters.put("capture_id", scope.captureId());
        parameters.put("analysis_key", key);
        SqlStage.load("queries/" + name).query(connection, parameters, rows);
    }

    /** The SQL condition that selects this analysis's rows, for queries written by hand. */
    public String where() {
        return "capture_id = " + scope.captureId() + " AND analysis_key = '" + key.replace("'", "''") + "'";
    }
}
