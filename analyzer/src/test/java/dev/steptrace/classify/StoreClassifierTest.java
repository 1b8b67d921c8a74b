package dev.steptrace.classify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.ingest.IngestOptions;
import dev.steptrace.ingest.IngestReport;
import dev.steptrace.ingest.Ingestor;
import dev.steptrace.store.Store;
import dev.steptrace.store.StoreException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StoreClassifier} on a store built by ingesting rank 0 of the sample capture
 * {@code h200-tp2-moe-decode/graph-nccl-ll}: 10 decode steps (ProfilerStep#2..#11) of a 61-layer MoE
 * with two TP all-reduces per layer plus the embedding all-reduce, i.e. 123 all-reduces per step.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StoreClassifierTest {
    @TempDir
    static Path dir;

    private static Store store;
    private static StoreClassifier.Result first;

    @BeforeAll
    static void ingestAndClassify() throws Exception {
        Path shared = SharedTraces.dir().orElse(null);
        Assumptions.assumeTrue(shared != null,
                "SKIPPED: ../shared (sample-traces) is not beside the project root");
        Path trace;
        try (Stream<Path> s = Files.list(shared.resolve("sample-traces/h200-tp2-moe-decode/graph-nccl-ll"))) {
            trace = s.filter(p -> p.getFileName().toString().startsWith("rank0.")).findFirst().orElse(null);
        }
        Assumptions.assumeTrue(trace != null, "SKIPPED: no rank0 trace in graph-nccl-ll");
        store = Store.open(dir.resolve("test.duckdb"));
        IngestReport report = new Ingestor(store, new IngestOptions(1, false, false)).ingest(List.of(trace));
        assertTrue(report.anyUsable(), "the sample trace loads");
        first = StoreClassifier.classify(store, Taxonomy.builtIn());
    }

    @AfterAll
    static void close() throws SQLException {
        if (store != null) {
            store.close();
        }
    }

    private static long count(String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = store.connection().prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Kernel events joined to their class under the built-in rules. */
    private static final String CLASSED_KERNELS = "FROM kernels k JOIN name_classes c ON c.name = k.name "
            + "AND c.kind = 'kernel' AND c.taxonomy_digest = ? ";

    @Test
    @Order(1)
    void everyDistinctNameAndKindIsClassifiedOnce() throws SQLException {
        long pairs = count("SELECT count(*) FROM (SELECT DISTINCT name, kind FROM gpu_events WHERE kind <> 'sync')");
        assertTrue(pairs > 30, "distinct names in the sample: " + pairs);
        assertEquals(pairs, first.classified());
        assertEquals(Taxonomy.builtIn().digest(), first.digest());
        assertEquals(pairs, count("SELECT count(*) FROM name_classes WHERE taxonomy_digest = ?", first.digest()));
        assertEquals(pairs, count("SELECT count(*) FROM (SELECT DISTINCT name, kind FROM name_classes "
                + "WHERE taxonomy_digest = ?)", first.digest()), "no pair twice");
        assertEquals(0, count("SELECT count(*) FROM gpu_events g WHERE kind <> 'sync' AND NOT EXISTS ("
                + "SELECT 1 FROM name_classes c WHERE c.name = g.name AND c.kind = CAST(g.kind AS VARCHAR) "
                + "AND c.taxonomy_digest = ?)", first.digest()), "every event has a class");
    }

    @Test
    @Order(2)
    void allReducesPerStepMatchACountByName() throws SQLException {
        long steps = count("SELECT count(*) FROM cpu_events WHERE kind = 'user_annotation' AND name LIKE 'ProfilerStep#%'");
        assertEquals(10, steps, "ProfilerStep#2..#11");
        long byName = count("SELECT count(*) FROM kernels WHERE name LIKE 'ncclDevKernel_AllReduce%'");
        assertEquals(123 * steps, byName, "61 layers x 2 + 1 embedding all-reduce per step");
        long byClass = count("SELECT count(*) " + CLASSED_KERNELS + "WHERE c.category = 'allreduce'", first.digest());
        assertEquals(byName, byClass, "every all-reduce kernel, and nothing else, is allreduce");
        assertEquals(byName, count("SELECT count(*) " + CLASSED_KERNELS
                + "WHERE c.category = 'allreduce' AND c.subcategory = 'nccl' AND c.rule_id = 'comm.nccl.allreduce' "
                + "AND k.name LIKE 'ncclDevKernel_AllReduce%'", first.digest()));
    }

    @Test
    @Order(3)
    void allGatherIsOtherCommAndTheMoeGemvIsMoeGemm() throws SQLException {
        long gathers = count("SELECT count(*) FROM kernels WHERE name LIKE 'ncclDevKernel_AllGather%'");
        assertEquals(10, gathers, "one lm-head all-gather per step");
        assertEquals(gathers, count("SELECT count(*) " + CLASSED_KERNELS
                + "WHERE k.name LIKE 'ncclDevKernel_AllGather%' AND c.category = 'comm_other' "
                + "AND c.subcategory = 'all_gather'", first.digest()));
        long moe = count("SELECT count(*) FROM kernels WHERE name = 'fused_moe_kernel_gptq_awq'");
        assertEquals(2 * 61 * 10, moe, "gate_up and down projections of 61 layers, 10 steps");
        assertEquals(moe, count("SELECT count(*) " + CLASSED_KERNELS + "WHERE c.category = 'moe_gemm'", first.digest()));
        assertEquals(0, count("SELECT count(*) " + CLASSED_KERNELS + "WHERE c.rule_id = ?", first.digest(),
                Taxonomy.CATCH_ALL_ID), "no kernel of the sample is unclassified");
        assertEquals(count("SELECT count(*) FROM gpu_events WHERE kind IN ('memcpy', 'memset')"),
                count("SELECT count(*) FROM gpu_events g JOIN name_classes c ON c.name = g.name "
                        + "AND c.kind = CAST(g.kind AS VARCHAR) AND c.taxonomy_digest = ? "
                        + "WHERE g.kind IN ('memcpy', 'memset') AND c.category = 'memcpy'", first.digest()));
    }

    @Test
    @Order(4)
    void classifyingAgainUnderTheSameRulesAddsNothing() throws SQLException, StoreException {
        long rows = count("SELECT count(*) FROM name_classes");
        StoreClassifier.Result again = StoreClassifier.classify(store, Taxonomy.builtIn());
        assertEquals(0, again.classified());
        assertEquals(rows, count("SELECT count(*) FROM name_classes"));
    }

    @Test
    @Order(5)
    void otherRulesClassifyAgainUnderTheirOwnDigest() throws SQLException, IOException, StoreException {
        Path rules = dir.resolve("site.yaml");
        Files.writeString(rules, "rules:\n  - {id: site.nvjet_is_lm_head, match: 'nvjet_sm90_tst_128x8', "
                + "category: gemm, subcategory: lm_head}\n");
        Taxonomy mine = Taxonomy.builtIn().withUserRules(rules);
        StoreClassifier.Result r = StoreClassifier.classify(store, mine);
        assertEquals(first.classified(), r.classified(), "all pairs again, under the new digest");
        assertEquals(2, count("SELECT count(DISTINCT taxonomy_digest) FROM name_classes"));
        assertEquals(1, count("SELECT count(*) FROM name_classes WHERE taxonomy_digest = ? AND rule_id = 'site.nvjet_is_lm_head'",
                mine.digest()));
        assertEquals(0, count("SELECT count(*) FROM name_classes WHERE taxonomy_digest = ? AND rule_id = 'site.nvjet_is_lm_head'",
                first.digest()), "the rows of the built-in rules are untouched");
    }
}
