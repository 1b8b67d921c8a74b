package dev.steptrace.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.steptrace.report.ReportContent;
import dev.steptrace.report.ReportJson;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HexFormat;

/**
 * Report contents kept in the store's {@code report_cache} table, so that a second report over the same
 * files (another format, another phase, other templates) skips the capture's analysis. An entry is found
 * only under the same files (path, size, content hash, ingest time, rank: re-ingesting a file changes the
 * key) and the same options (taxonomy digest, step regex, device peaks and model file), made by this
 * steptrace build.
 */
final class ReportCache {
    /**
     * The report model's own JSON mapping, unindented (the content of a big capture is ~0.4 MB), reading
     * back the NaN that a mean of no steps may hold.
     */
    private static final ObjectMapper MAPPER = ReportJson.MAPPER.copy()
            .disable(SerializationFeature.INDENT_OUTPUT)
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS.mappedFeature());

    private final Connection connection;
    private final int captureId;
    private final String filesKey;
    private final String optionsKey;
    private final String build;

    private ReportCache(Connection connection, int captureId, String filesKey, String optionsKey, String build) {
        this.connection = connection;
        this.captureId = captureId;
        this.filesKey = filesKey;
        this.optionsKey = optionsKey;
        this.build = build;
    }

    /** The cache entry of a capture's report under these options (present or not). */
    static ReportCache entry(Connection c, int captureId, AnalysisOptions options, String build) throws SQLException {
        StringBuilder files = new StringBuilder();
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT c.path, c.name, f.file_id, f.path, f.size_bytes, f.content_hash, f.status, f.rank,
                       f.world_size, f.ingested_at
                FROM captures c JOIN files f USING (capture_id) WHERE c.capture_id = ? ORDER BY f.file_id
                """)) {
            ps.setInt(1, captureId);
            try (ResultSet rs = ps.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    for (int i = 1; i <= columns; i++) {
                        files.append(rs.getString(i)).append('\u0000');
                    }
                    files.append('\n');
                }
            }
        }
        String stepRegex = options.stepRegex() == null ? "" : options.stepRegex().pattern();
        return new ReportCache(c, captureId, sha256(files.toString()),
                sha256(options.taxonomy().digest() + '\u0000' + stepRegex + '\u0000' + options.roofline().digest()), build);
    }

    /** The kept content, or null when there is none for these files and options. */
    ReportContent get() throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT content FROM report_cache WHERE capture_id = ? AND files_key = ? AND options_key = ? AND build = ?")) {
            bindKey(ps);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                try {
                    return MAPPER.readValue(rs.getString(1), ReportContent.class);
                } catch (JsonProcessingException e) {
                    // Written by this same build, so unreadable means damaged: compute it again.
                    return null;
                }
            }
        }
    }

    /**
     * Keeps {@code content} for these files and options; drops the capture's entries for files that
     * are gone or changed, those another steptrace build made, and any earlier entry under the same key.
     */
    void put(ReportContent content) throws SQLException {
        String json;
        try {
            json = MAPPER.writeValueAsString(content);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the report model does not serialize to JSON", e);
        }
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            try (PreparedStatement ps = connection.prepareStatement(
                    "DELETE FROM report_cache WHERE capture_id = ? AND (files_key <> ? OR options_key = ? OR build <> ?)")) {
                bindKey(ps);
                ps.execute();
            }
            try (PreparedStatement ps = connection.prepareStatement(
                    "INSERT INTO report_cache VALUES (?, ?, ?, ?, ?, current_timestamp::TIMESTAMP)")) {
                bindKey(ps);
                ps.setString(5, json);
                ps.execute();
            }
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    /** Parameters 1-4: capture id, files key, options key, build (every statement here starts with them). */
    private void bindKey(PreparedStatement ps) throws SQLException {
        ps.setInt(1, captureId);
        ps.setString(2, filesKey);
        ps.setString(3, optionsKey);
        ps.setString(4, build);
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-256", e);
        }
    }
}
