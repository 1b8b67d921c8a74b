package dev.steptrace.classify;

import dev.steptrace.store.Store;
import dev.steptrace.store.TableBatch;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Fills the store's {@code name_classes} table: every distinct (name, kind) of {@code gpu_ops} with
 * kind kernel, memcpy or memset that has no row yet under the taxonomy's digest is classified once and
 * inserted, all in one transaction (a failure leaves nothing half-written). The dictionary of distinct
 * names is classified, never the events.
 */
public final class StoreClassifier {
    /** Rows per Arrow batch handed to DuckDB. */
    static final int BATCH_ROWS = 4096;

    private static final String PENDING_SQL =
            "WITH used AS (SELECT DISTINCT file_id, name_id, kind FROM gpu_ops "
                    + "WHERE kind IN ('kernel', 'memcpy', 'memset')) "
                    + "SELECT DISTINCT n.name, CAST(u.kind AS VARCHAR) AS kind "
                    + "FROM used u JOIN names n ON n.file_id = u.file_id AND n.name_id = u.name_id "
                    + "EXCEPT "
                    + "SELECT name, kind FROM name_classes WHERE taxonomy_digest = ?";

    private StoreClassifier() {}

    /**
     * What one run did.
     *
     * @param digest     the taxonomy digest the rows were written under
     * @param classified distinct (name, kind) pairs classified and inserted now
     */
    public record Result(String digest, int classified) {
    }

    /**
     * Classifies the (name, kind) pairs of {@code store} not yet classified under {@code taxonomy}'s
     * digest. Running it again with the same rules inserts nothing.
     */
    public static Result classify(Store store, Taxonomy taxonomy) throws SQLException {
        String digest = taxonomy.digest();
        try (Connection c = store.newConnection()) {
            c.setAutoCommit(false);
            try {
                List<String[]> pending = pending(c, digest);
                if (!pending.isEmpty()) {
                    try (TableBatch batch = TableBatch.forTable(c, store.allocator(), "name_classes",
                            Math.min(BATCH_ROWS, pending.size()))) {
                        int name = batch.column("name");
                        int kind = batch.column("kind");
                        int category = batch.column("category");
                        int subcategory = batch.column("subcategory");
                        int rule = batch.column("rule_id");
                        int dig = batch.column("taxonomy_digest");
                        for (String[] p : pending) {
                            Classification cl = taxonomy.classify(p[0], p[1]);
                            batch.setString(name, p[0]);
                            batch.setString(kind, p[1]);
                            batch.setString(category, cl.categoryId());
                            batch.setString(subcategory, cl.subcategory());
                            batch.setString(rule, cl.ruleId());
                            batch.setString(dig, digest);
                            batch.endRow();
                        }
                        batch.flush();
                    }
                }
                c.commit();
                return new Result(digest, pending.size());
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    private static List<String[]> pending(Connection c, String digest) throws SQLException {
        List<String[]> pending = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(PENDING_SQL)) {
            ps.setString(1, digest);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    pending.add(new String[] {rs.getString(1), rs.getString(2)});
                }
            }
        }
        return pending;
    }
}
