package dev.steptrace.store;

import java.sql.SQLException;

/** One file's rows of {@code op_shapes} (docs/schema.md): a distinct set of an op's input shapes each. */
public final class OpShapeWriter {
    private final TableBatch batch;
    private final int fileId;
    private final int file;
    private final int shape;
    private final int dims;
    private final int types;
    private final int strides;
    private final int concrete;

    public OpShapeWriter(TableBatch batch, int fileId) {
        this.batch = batch;
        this.fileId = fileId;
        file = batch.column("file_id");
        shape = batch.column("shape_id");
        dims = batch.column("input_dims");
        types = batch.column("input_types");
        strides = batch.column("input_strides");
        concrete = batch.column("concrete_inputs");
    }

    /** A row: shape id {@code id} of this file, its JSON arrays as written (null for none). */
    public void write(int id, String inputDims, String inputTypes, String inputStrides, String concreteInputs)
            throws SQLException {
        batch.setInt(file, fileId);
        batch.setInt(shape, id);
        batch.setString(dims, inputDims);
        batch.setString(types, inputTypes);
        batch.setString(strides, inputStrides);
        batch.setString(concrete, concreteInputs);
        batch.endRow();
    }
}
