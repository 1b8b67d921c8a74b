package dev.steptrace.ingest.kineto;

import dev.steptrace.store.OpShapeWriter;
import java.sql.SQLException;

/**
 * The distinct input shapes of one file's CPU ops, into {@code op_shapes}: each distinct (dims, types,
 * strides, concrete inputs) gets an id that {@code cpu_ops.shape_id} points at, so thousands of
 * identical {@code aten::mm} calls store their shapes once.
 *
 * <p>Memory stays bounded whatever the file: after {@value #MAX_DISTINCT} distinct shapes the
 * dictionary starts afresh with new ids. A shape seen again after that gets a second row under a new
 * id, which costs space, never correctness.
 */
final class OpShapes {
    static final int MAX_DISTINCT = 32768;
    private static final char SEPARATOR = '\u0001';

    private final OpShapeWriter rows;
    private final int maxDistinct;
    private NameDictionary distinct = new NameDictionary();
    private int idBase;
    private char[] key = new char[256];

    /** @param rows the file's {@code op_shapes} rows (its owner flushes and closes them) */
    OpShapes(OpShapeWriter rows) {
        this(rows, MAX_DISTINCT);
    }

    /** With a smaller bound, for tests of the rollover. */
    OpShapes(OpShapeWriter rows, int maxDistinct) {
        this.rows = rows;
        this.maxDistinct = maxDistinct;
    }

    /** The id of these inputs' shapes, writing an {@code op_shapes} row the first time they are seen. */
    int idOf(TraceEvent.OpInputs in) throws SQLException {
        int len = in.dims.length() + in.types.length() + in.strides.length() + in.concrete.length() + 3;
        if (key.length < len) {
            key = new char[Math.max(len, key.length * 2)];
        }
        int at = append(in.dims, 0);
        key[at++] = SEPARATOR;
        at = append(in.types, at);
        key[at++] = SEPARATOR;
        at = append(in.strides, at);
        key[at++] = SEPARATOR;
        append(in.concrete, at);
        int size = distinct.size();
        int id = idBase + distinct.idOf(key, 0, len);
        if (id == idBase + size) {
            rows.write(id, textOrNull(in.dims), textOrNull(in.types), textOrNull(in.strides), textOrNull(in.concrete));
            if (distinct.size() >= maxDistinct) {
                idBase += distinct.size();
                distinct = new NameDictionary();
            }
        }
        return id;
    }

    private int append(StringBuilder s, int at) {
        s.getChars(0, s.length(), key, at);
        return at + s.length();
    }

    private static String textOrNull(StringBuilder s) {
        return s.length() == 0 ? null : s.toString();
    }
}
