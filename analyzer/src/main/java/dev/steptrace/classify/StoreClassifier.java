package dev.steptrace.classify;

import dev.steptrace.store.Store;
import dev.steptrace.store.StoreException;
import dev.steptrace.store.TableBatch;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Fills the store's {@code name_classes} table: every distinct (name, kind) of {@code gpu_ops} with
 * kind kernel, memcpy or memset that has no row yet under the taxonomy's digest is classified once and
 * inserted, all in one transaction (a failure leaves nothing half-written). The dictionary of distinct
 * names is classified, never the events: a batch of names at a time, on every core (a capture can hold
 * a million distinct names, at a few microseconds each).
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

    /** The columns of name_classes written, in the order of the values of one row. */
    private static final List<String> COLUMNS = List.of("name", "kind", "category", "subcategory", "rule_id",
            "taxonomy_digest");

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
    public static Result classify(Store store, Taxonomy taxonomy) throws SQLException, StoreException {
        String digest = taxonomy.digest();
        // Names are read on one connection and written on another, a batch at a time: a capture with
        // millions of distinct names never has them all on the heap.
        try (Connection c = store.newConnection(); Connection reader = store.newConnection();
             PreparedStatement ps = reader.prepareStatement(PENDING_SQL)) {
            ps.setString(1, digest);
            c.setAutoCommit(false);
            int classified = 0;
            int[] column = new int[COLUMNS.size()];
            String[] names = new String[BATCH_ROWS];
            String[] kinds = new String[BATCH_ROWS];
            Classification[] classes = new Classification[BATCH_ROWS];
            TableBatch batch = null;
            try (ResultSet rs = ps.executeQuery()) {
                for (int n = read(rs, names, kinds); n > 0; n = n < BATCH_ROWS ? 0 : read(rs, names, kinds)) {
                    if (batch == null) {
                        if (store.readOnly()) {
                            throw new StoreException("the store " + store.path() + " cannot be written (" + store.whyReadOnly() + ")"
                                    + " and its kernel names were never classified under this taxonomy (ingested with"
                                    + " --no-analysis, or under other rules): analyse it once where it can be written,"
                                    + " or copy it somewhere writable", null);
                        }
                        batch = TableBatch.forTable(c, store.allocator(), "name_classes", BATCH_ROWS);
                        for (int i = 0; i < COLUMNS.size(); i++) {
                            column[i] = batch.column(COLUMNS.get(i));
                        }
                    }
                    IntStream.range(0, n).parallel().forEach(i -> classes[i] = taxonomy.classify(names[i], kinds[i]));
                    for (int row = 0; row < n; row++) {
                        Classification cl = classes[row];
                        String[] values = {names[row], kinds[row], cl.categoryId(), cl.subcategory(), cl.ruleId(), digest};
                        for (int i = 0; i < values.length; i++) {
                            batch.setString(column[i], values[i]);
                        }
                        batch.endRow();
                    }
                    classified += n;
                }
                if (batch != null) {
                    batch.flush();
                }
                c.commit();
                return new Result(digest, classified);
            } catch (SQLException | StoreException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                if (batch != null) {
                    batch.close();
                }
            }
        }
    }

    /** Reads up to a batch of (name, kind) rows; how many. */
    private static int read(ResultSet rs, String[] names, String[] kinds) throws SQLException {
        int n = 0;
        while (n < names.length && rs.next()) {
            names[n] = rs.getString(1);
            kinds[n] = rs.getString(2);
            n++;
        }
        return n;
    }
}
