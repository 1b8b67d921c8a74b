package dev.steptrace.ingest.kineto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.steptrace.store.Store;
import dev.steptrace.store.OpShapeWriter;
import dev.steptrace.store.TableBatch;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shape dictionary's bound: past it, ids keep pointing at the right rows. */
class OpShapesTest {
    @TempDir
    Path tmp;

    @Test
    void idsStayRightAcrossARollover() throws Exception {
        String[] dims = {"[[1,2]]", "[[3,4]]", "[[5,6]]", "[[1,2]]", "[[7,8]]", "[[3,4]]"};
        List<Integer> ids = new ArrayList<>();
        try (Store store = Store.open(tmp.resolve("s.duckdb"))) {
            try (TableBatch batch = TableBatch.forTable(store.connection(), store.allocator(), "op_shapes", 4096)) {
                OpShapes shapes = new OpShapes(new OpShapeWriter(batch, 7), 2);
                TraceEvent e = new TraceEvent();
                for (String d : dims) {
                    e.reset();
                    e.touchInputs().dims.append(d);
                    e.inputs().types.append("[\"float\"]");
                    ids.add(shapes.idOf(e.inputs()));
                }
                batch.flush();
            }
            // [1,2] and [3,4] fill the first dictionary: seen again after it rolled, they get new ids.
            assertEquals(List.of(0, 1, 2, 3, 4, 5), ids.subList(0, 6).stream().map(i -> ids.indexOf(i)).toList());
            assertNotEquals(ids.get(0), ids.get(3));
            try (Statement s = store.connection().createStatement()) {
                for (int i = 0; i < dims.length; i++) {
                    try (ResultSet rs = s.executeQuery(
                            "SELECT input_dims, input_types, input_strides FROM op_shapes WHERE file_id = 7 AND shape_id = "
                                    + ids.get(i))) {
                        rs.next();
                        assertEquals(dims[i], rs.getString(1));
                        assertEquals("[\"float\"]", rs.getString(2));
                        assertEquals(null, rs.getString(3), "an absent arg is NULL");
                        assertEquals(false, rs.next(), "one row per id");
                    }
                }
            }
        }
    }
}
