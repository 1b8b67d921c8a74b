package dev.steptrace.classify;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.steptrace.ingest.IngestOptions;
import dev.steptrace.ingest.Ingestor;
import dev.steptrace.store.Store;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StoreClassifier} over more names than one batch: exactly two full batches, then two and one more,
 * the names of two classes alternating, so a name given another name's class (names are classified in
 * parallel) or a batch classified twice or not at all shows in the counts.
 */
class StoreClassifierBatchesTest {
    private static final String ALL_REDUCE = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)_";
    private static final String ADD = "void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<"
            + "c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)_";

    @TempDir
    Path dir;

    @Test
    void twoFullBatchesAreEachClassifiedOnce() throws Exception {
        classifiesEveryName(2 * StoreClassifier.BATCH_ROWS);
    }

    @Test
    void aLastBatchOfOneNameIsClassified() throws Exception {
        classifiesEveryName(2 * StoreClassifier.BATCH_ROWS + 1);
    }

    private void classifiesEveryName(int names) throws Exception {
        Path trace = dir.resolve("rank0.pt.trace.json");
        write(trace, names);
        try (Store store = Store.open(dir.resolve("s.duckdb"))) {
            new Ingestor(store, new IngestOptions(1, false, false)).ingest(List.of(trace));
            assertEquals(names, StoreClassifier.classify(store, Taxonomy.builtIn()).classified());
            List<String> counts = new ArrayList<>();
            try (Statement s = store.connection().createStatement();
                 ResultSet rs = s.executeQuery("SELECT starts_with(name, 'nccl'), category, subcategory, count(*), "
                         + "count(DISTINCT name) FROM name_classes GROUP BY ALL ORDER BY ALL")) {
                while (rs.next()) {
                    counts.add(rs.getBoolean(1) + " " + rs.getString(2) + "/" + rs.getString(3) + " " + rs.getLong(4)
                            + " " + rs.getLong(5));
                }
            }
            int allReduces = names / 2;
            int adds = names - allReduces;
            assertEquals(List.of("false other/elementwise " + adds + " " + adds,
                    "true allreduce/nccl " + allReduces + " " + allReduces), counts);
        }
    }

    /** Kernel i is named after class i % 2, with i as its suffix. */
    private static void write(Path file, int names) throws Exception {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.US_ASCII)) {
            w.write("{\"schemaVersion\": 1, \"traceEvents\": [\n");
            for (int i = 0; i < names; i++) {
                w.write("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + (i % 2 == 0 ? ADD : ALL_REDUCE) + i
                        + "\", \"pid\": 0, \"tid\": 7, \"ts\": " + (1000 + 2L * i) + ", \"dur\": 1}"
                        + (i + 1 < names ? ",\n" : "\n"));
            }
            w.write("]}\n");
        }
    }
}
