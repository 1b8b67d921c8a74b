package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.store.Store;
import dev.steptrace.testing.TestData;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * record_shapes args survive ingest: every CPU op of the real eager capture keeps its Input Dims,
 * Input type, Input Strides and Concrete Inputs, checked against Jackson's own tree of each event read
 * here, and identical shapes are stored once per file.
 */
class OpShapesIngestTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> ARGS = List.of("Input Dims", "Input type", "Input Strides", "Concrete Inputs");

    @TempDir
    Path tmp;

    @Test
    void everyCpuOpKeepsItsShapes() throws Exception {
        Path trace = TestData.kinetoTraces(TestData.sampleTraces().resolve("h200-tp2-moe-eager")).get(0);
        Map<Long, List<JsonNode>> expected = new HashMap<>();
        Set<List<JsonNode>> everyShape = new HashSet<>();
        readShapes(trace, expected, everyShape);
        assertTrue(expected.size() > 40_000, "the eager capture records shapes on every op");

        Map<Long, List<JsonNode>> stored = new HashMap<>();
        int distinct;
        try (Store store = Store.open(tmp.resolve("store.duckdb"))) {
            new Ingestor(store, IngestOptions.defaults()).ingest(List.of(trace));
            try (Statement s = store.connection().createStatement()) {
                try (ResultSet rs = s.executeQuery("""
                        SELECT c.external_id, s.input_dims, s.input_types, s.input_strides, s.concrete_inputs
                        FROM cpu_ops c JOIN op_shapes s USING (file_id, shape_id) WHERE c.kind = 'cpu_op'
                        """)) {
                    while (rs.next()) {
                        List<JsonNode> v = new java.util.ArrayList<>();
                        for (int i = 2; i <= 5; i++) {
                            v.add(rs.getString(i) == null ? null : JSON.readTree(rs.getString(i)));
                        }
                        stored.put(rs.getLong(1), v);
                    }
                }
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM op_shapes")) {
                    rs.next();
                    distinct = rs.getInt(1);
                }
            }
        }
        assertEquals(expected, stored, "each op's four shape args, as JSON values");
        assertEquals(everyShape.size(), distinct, "one op_shapes row per distinct shape (annotations carry some too)");
    }

    @Test
    void textThatNeedsEscapingStaysTheSameText() throws Exception {
        // Quotes, backslashes and control characters inside Concrete Inputs, nested lists in Input Dims.
        String concrete = "[\"a\\\"b\", \"c\\\\d\", \"e\\u0001f\", \"\", \"[2, 3]\"]";
        Path trace = tmp.resolve("odd.json");
        Files.writeString(trace, "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::odd\", "
                + "\"pid\": 1, \"tid\": 1, \"ts\": 1.000, \"dur\": 2.000, \"args\": {\"External id\": 7, "
                + "\"Input Dims\": [[[1, 2], [3]], [], [4, 5]], \"Concrete Inputs\": " + concrete + "}}]}");
        try (Store store = Store.open(tmp.resolve("odd.duckdb"))) {
            new Ingestor(store, IngestOptions.defaults()).ingest(List.of(trace));
            try (Statement s = store.connection().createStatement();
                 ResultSet rs = s.executeQuery("SELECT input_dims, input_types, concrete_inputs FROM op_shapes")) {
                rs.next();
                assertEquals(JSON.readTree("[[[1, 2], [3]], [], [4, 5]]"), JSON.readTree(rs.getString(1)));
                assertEquals(null, rs.getString(2), "no Input type in the event");
                JsonNode stored = JSON.readTree(rs.getString(3));
                assertEquals(JSON.readTree(concrete), stored);
                assertEquals("a\"b", stored.get(0).asText());
                assertEquals("c\\d", stored.get(1).asText());
                assertEquals("e\u0001f", stored.get(2).asText());
            }
        }
    }

    /**
     * By a plain event walk: external id of each cpu_op with shape args -> the four args (null when
     * absent), and the distinct four-arg tuples of every event that has them.
     */
    private static void readShapes(Path trace, Map<Long, List<JsonNode>> cpuOps, Set<List<JsonNode>> every)
            throws Exception {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace));
             JsonParser p = JSON.getFactory().createParser(in)) {
            while (p.nextToken() != null) {
                if (p.currentToken() == JsonToken.FIELD_NAME && "traceEvents".equals(p.currentName())) {
                    p.nextToken();
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        JsonNode e = JSON.readTree(p);
                        JsonNode args = e.path("args");
                        if (ARGS.stream().anyMatch(args::has)) {
                            List<JsonNode> shape = ARGS.stream().map(a -> args.has(a) ? args.get(a) : null).toList();
                            every.add(shape);
                            if ("cpu_op".equals(e.path("cat").asText())) {
                                cpuOps.put(args.get("External id").asLong(), shape);
                            }
                        }
                    }
                }
            }
        }
    }
}
