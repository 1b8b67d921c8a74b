package dev.steptrace.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.steptrace.testsupport.Cli;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A timeline of more ranks than {@link Timeline#SCANS_PER_FILE_UP_TO} reads each table in one scan joined with
 * the files' step ranges (thousands of scans, one per file, took more than DuckDB's memory at 1000 ranks): ranks
 * 0 and 1 of it hold exactly the events of a timeline of those two ranks alone, read a scan per file.
 */
class TimelineManyRanksTest {
    @TempDir
    Path tmp;

    @Test
    void aTimelineOfManyRanksHoldsEachRanksEventsAsOneOfFewRanks() throws Exception {
        int ranks = Timeline.SCANS_PER_FILE_UP_TO + 2;
        Path capture = tmp.resolve("ranks");
        Path db = tmp.resolve("st.duckdb");
        Cli.assertExit(0, Cli.run("synth", "--preset", "moe-tp8-eager", "--ranks", String.valueOf(ranks), "--steps", "2",
                "--prefill-steps", "0", "--layers", "1", "--out", capture.toString(), "-q"));
        Path all = tmp.resolve("all.json");
        Path two = tmp.resolve("two.json");
        // No clock alignment: the offsets estimated from 2 ranks and from all of them may differ.
        Cli.assertExit(0, Cli.run("timeline", capture.toString(), "--db", db.toString(), "--steps", "1", "--align", "none",
                "--out", all.toString(), "-q"));
        Cli.assertExit(0, Cli.run("timeline", capture.toString(), "--db", db.toString(), "--steps", "1", "--align", "none",
                "--ranks", "0-1", "--out", two.toString(), "-q"));
        ObjectMapper json = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
        JsonNode a = json.readTree(all.toFile());
        JsonNode b = json.readTree(two.toFile());
        assertEquals(ranks, a.at("/steptrace/processes").size());
        // Ranks 0 and 1 are processes 1 and 2 in both files.
        List<String> inAll = slices(a);
        List<String> inTwo = slices(b);
        assertEquals(inTwo, inAll);
        long cpu = inTwo.stream().filter(e -> e.contains("\"cat\":\"cuda_runtime\"")).count();
        long gpu = inTwo.stream().filter(e -> e.contains("\"cat\":\"kernel\"")).count();
        assertTrue(cpu > 0 && gpu > 0, "launches " + cpu + ", kernels " + gpu);
    }

    /**
     * The complete events ("X") of processes 1 and 2, as JSON text, in file order, each start as nanoseconds
     * since the epoch: a file's times count from its earliest step of all its ranks ({@code baseTimeNanoseconds}).
     */
    private static List<String> slices(JsonNode doc) {
        BigDecimal base = new BigDecimal(doc.get("baseTimeNanoseconds").asText());
        List<String> out = new ArrayList<>();
        for (JsonNode e : doc.get("traceEvents")) {
            if (e.path("ph").asText().equals("X") && Set.of(1, 2).contains(e.path("pid").asInt())) {
                ObjectNode copy = e.deepCopy();
                copy.put("ts", base.add(e.get("ts").decimalValue().movePointRight(3)).toBigIntegerExact().toString());
                out.add(copy.toString());
            }
        }
        return out;
    }
}
