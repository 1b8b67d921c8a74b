package dev.steptrace.ingest.kineto;

import dev.steptrace.store.TableBatch;
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

    private final int fileId;
    private final TableBatch batch;
    private final int file;
    private final int shape;
    private final int dims;
    private final int types;
    private final int strides;
    private final int concrete;
    private final int maxDistinct;
    private NameDictionary distinct = new NameDictionary();
    private int idBase;
    private char[] key = new char[256];

    /** @param batch the file's {@code op_shapes} batch (its owner flushes and closes it) */
    OpShapes(TableBatch batch, int fileId) {
        this(batch, fileId, MAX_DISTINCT);
    }

    /** With a smaller bound, for tests of the rollover. */
    OpShapes(TableBatch batch, int fileId, int maxDistinct) {
        this.fileId = fileId;
        this.maxDistinct = maxDistinct;
        this.batch = batch;
        file = batch.column("file_id");
        shape = batch.column("shape_id");
        dims = batch.column("input_dims");
        types = batch.column("input_types");
        strides = batch.column("input_strides");
        concrete = batch.column("concrete_inputs");
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
            batch.setInt(file, fileId);
            batch.setInt(shape, id);
            batch.setString(dims, textOrNull(in.dims));
            batch.setString(types, textOrNull(in.types));
            batch.setString(strides, textOrNull(in.strides));
            batch.setString(concrete, textOrNull(in.concrete));
            batch.endRow();
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
