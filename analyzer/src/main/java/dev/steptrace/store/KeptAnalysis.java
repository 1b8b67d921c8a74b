package dev.steptrace.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * One capture's analysis as the store keeps it (docs/schema.md, "The analysis"): the rows of the analysis tables
 * under (capture id, analysis key), read through the analysis's {@link QueryFile query files}. What reads a kept
 * analysis (the report, the capture-quality rules, the roofline, the decision memo) reads it so.
 *
 * @param connection a connection to the store
 */
public record KeptAnalysis(Connection connection, int captureId, String key) {
    /**
     * Runs query file {@code NAME} over this analysis: its {@code capture_id} and {@code analysis_key} are this
     * capture and key, its other parameters by name in {@code more}; each row goes to {@code rows}.
     */
    public void query(String name, Map<String, ?> more, Sql.Rows rows) throws SQLException {
        QueryFile.load(name).run(connection, parameters(more), rows);
    }

    /** {@link #query}, the rows handed to {@code batches} as Arrow batches of up to {@code batchRows}. */
    public void queryBatches(String name, Map<String, ?> more, int batchRows, Sql.Batches batches)
            throws SQLException {
        QueryFile.load(name).runBatches(connection, parameters(more), batchRows, batches);
    }

    /**
     * The statement of query file {@code NAME} over this analysis, its parameters written as literals: what a
     * warning shows as its evidence, which any DuckDB client runs on the store as it is. A parameter {@code more}
     * does not give is NULL, which the query files read as "all" (every phase, every op).
     */
    public String evidence(String name, Map<String, ?> more) {
        QueryFile query = QueryFile.load(name);
        Map<String, Object> parameters = new HashMap<>();
        query.parameters().forEach(p -> parameters.put(p, null));
        parameters.putAll(parameters(more));
        return query.literal(parameters);
    }

    private Map<String, Object> parameters(Map<String, ?> more) {
        Map<String, Object> parameters = new HashMap<>(more);
        parameters.put("capture_id", captureId);
        parameters.put("analysis_key", key);
        return parameters;
    }
}
