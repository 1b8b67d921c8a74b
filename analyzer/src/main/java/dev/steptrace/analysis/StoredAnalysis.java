package dev.steptrace.analysis;

import dev.steptrace.store.CaptureScope;
import dev.steptrace.common.StepSource;
import dev.steptrace.quality.CaptureRules;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Thresholds;
import dev.steptrace.store.KeptAnalysis;
import dev.steptrace.store.Sql;
import dev.steptrace.store.StoreCaptures;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One capture's analysis as the store keeps it (docs/schema.md, "The analysis"): the rows of the analysis
 * tables under (capture id, analysis key). The report, the diff, the decision memo and the API read
 * these rows through its query files ({@link #query}), never a second computation.
 *
 * @param connection a connection to the store
 * @param scope      the capture and its files
 * @param key        the analysis key ({@code analysis_key})
 * @param stepSource where the steps came from
 * @param thresholds the rules' thresholds the analysis was checked with (part of its key)
 * @param warnings   capture-quality warnings, in order
 */
public record StoredAnalysis(Connection connection, CaptureScope scope, String key, StepSource stepSource,
                             Thresholds thresholds, List<Warning> warnings) {

    /**
     * The capture's analysis under {@code key}, when the store holds one made from the capture's current
     * files by this build; else null (none, or a stale one: it is to be made again).
     */
    public static StoredAnalysis find(Connection c, int captureId, AnalysisKey key, String build) throws SQLException {
        KeptAnalysis kept = new KeptAnalysis(c, captureId, key.id());
        String[] source = {null};
        kept.query("kept-analysis", Map.of("files_key", StoreCaptures.filesKey(c, captureId),
                "taxonomy_digest", key.taxonomy().digest(), "build", build), rs -> source[0] = rs.getString(1));
        if (source[0] == null) {
            return null;
        }
        List<Warning> warnings = new ArrayList<>();
        kept.query("kept-warnings", Map.of(), rs -> warnings.add(CaptureRules.warning(rs.getString(1), rs.getString(2),
                key.thresholds(), kept)));
        return new StoredAnalysis(c, CaptureScope.load(c, captureId), key.id(), StepSource.of(source[0]),
                key.thresholds(), List.copyOf(warnings));
    }

    /**
     * A capture's analysis whose tables were filled by another program than {@link CaptureAnalysis} (the
     * Spark application assembles them from its dataset, docs/spark.md): no {@code analyses} row; the step
     * source is the one {@code steps} names, the warnings those its tables give under the default thresholds.
     */
    public static StoredAnalysis assembled(Connection c, int captureId, String key) throws SQLException {
        String[] source = {null};
        new KeptAnalysis(c, captureId, key).query("step-source", Map.of(), rs -> source[0] = rs.getString(1));
        // Without steps the source is nowhere in a report (it is a phase's): any will do.
        return checked(c, CaptureScope.load(c, captureId), key, source[0] == null ? StepSource.GAP
                : StepSource.of(source[0]), Thresholds.defaults());
    }

    /** An analysis just kept, with its warnings: the capture-quality rules run over its kept tables. */
    static StoredAnalysis checked(Connection c, CaptureScope scope, String key, StepSource source, Thresholds thresholds)
            throws SQLException {
        List<Warning> warnings = CaptureRules.check(new KeptAnalysis(c, scope.captureId(), key), source, thresholds);
        return new StoredAnalysis(c, scope, key, source, thresholds, List.copyOf(warnings));
    }

    public int captureId() {
        return scope.captureId();
    }

    /**
     * A statement of the caller's own over the analysis tables whose parameters {@code $1} and {@code $2} are bound
     * to this capture and analysis key ({@code WHERE capture_id = $1 AND analysis_key = $2}); further parameters
     * are {@code $3}... in {@code more}. For readers whose SQL is not yet a query file (the timeline, the API).
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

    /** This analysis as its readers outside the analysis query it. */
    public KeptAnalysis kept() {
        return new KeptAnalysis(connection, scope.captureId(), key);
    }

    /** Runs the query file {@code queries/NAME.sql} over this analysis ({@link KeptAnalysis#query}). */
    public void query(String name, Map<String, ?> more, Sql.Rows rows) throws SQLException {
        kept().query(name, more, rows);
    }

    /** The SQL condition that selects this analysis's rows, for queries written by hand (the API's). */
    public String where() {
        return "capture_id = " + scope.captureId() + " AND analysis_key = '" + key.replace("'", "''") + "'";
    }
}
