package dev.steptrace.store;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/** The columns of a query's Arrow record batch ({@link QueryFile#runBatches}) as Java reads them into arrays. */
public final class ArrowColumns {
    private ArrowColumns() {}

    /** Column {@code col} (0-based) of {@code batch}, an integer of any width: read with value and isNull. */
    public static BaseIntVector ints(VectorSchemaRoot batch, int col) {
        return (BaseIntVector) batch.getVector(col);
    }

    /** Row {@code row} of integer column {@code v}, or {@code ifNull} where it is NULL. */
    public static long value(BaseIntVector v, int row, long ifNull) {
        return ((FieldVector) v).isNull(row) ? ifNull : v.getValueAsLong(row);
    }

    /** Whether row {@code row} of integer column {@code v} is NULL. */
    public static boolean isNull(BaseIntVector v, int row) {
        return ((FieldVector) v).isNull(row);
    }

    /** Row {@code row} of boolean column {@code col}; NULL is false. */
    public static boolean bool(VectorSchemaRoot batch, int col, int row) {
        BitVector v = (BitVector) batch.getVector(col);
        return !v.isNull(row) && v.get(row) == 1;
    }

    /**
     * Row {@code row} of text column {@code col}, or null; the one String of each value in {@code pool} (a column of
     * few distinct values, such as categories, holds one String per value, not one per row).
     */
    public static String text(VectorSchemaRoot batch, int col, int row, Map<String, String> pool) {
        FieldVector v = batch.getVector(col);
        if (v.isNull(row)) {
            return null;
        }
        String s = new String(((VariableWidthFieldVector) v).get(row), StandardCharsets.UTF_8);
        return pool.computeIfAbsent(s, x -> x);
    }
}
