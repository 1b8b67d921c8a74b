package dev.steptrace.analysis;

import dev.steptrace.roofline.WorkModels;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The Java step between stages {@code 70-launch-ops} and {@code 71-kernel-work}: every distinct (op, shapes) that
 * launched work and has a work model ({@link WorkModels}, docs/roofline.md) gets its FLOPs and bytes, from
 * {@code t_shape_calls(file_id, name_id, name, shape_id, input_dims, input_types, concrete_inputs)} into
 * {@code t_shape_work(file_id, op_name_id, shape_id, family, precision, flops, bytes)}, which stage 71 shares among
 * the kernels each op launched. Under CUDA graphs kernels carry no external id, so they have no shapes and no work
 * here: only a model file can say what such a step must do (roofline's DecodeFloors).
 */
final class ShapeWork {
    private ShapeWork() {}

    static void fill(Connection c) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        SqlStage.read(c, "t_shape_calls", List.of("file_id", "name_id", "name", "shape_id", "input_dims", "input_types",
                "concrete_inputs"), rs -> {
            WorkModels.Work w = WorkModels.of(rs.getString(3), rs.getString(5), rs.getString(6), rs.getString(7));
            if (w != null) {
                List<Object> row = new ArrayList<>();
                row.add(rs.getInt(1));
                row.add(rs.getInt(2));
                row.add(rs.getInt(4));
                row.add(w.family());
                row.add(w.precision() == null ? null : w.precision().id());
                row.add(w.flops());
                row.add(w.bytes());
                rows.add(row);
            }
        });
        SqlStage.fill(c, "t_shape_work", rows);
    }
}
