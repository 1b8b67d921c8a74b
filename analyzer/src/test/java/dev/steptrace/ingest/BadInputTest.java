package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.store.DuckDb;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.StoreDb;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Some fixtures of the bad-input corpus checked value by value, through the real command line
 * ({@code steptrace ingest ... --json}): damage offsets, exact times and ids, re-ingest and store
 * failures. Fixtures live in {@code src/test/resources/bad-input/}; their README is the corpus (every
 * case and its outcome, run by {@link BadInputCorpusTest}). Every expected row below was counted by
 * hand from the fixture.
 *
 * <p>{@code base.json} holds 11 events: 1 ProfilerStep#2 (user_annotation), 2 aten::mm (cpu_op),
 * 3 cudaLaunchKernel (cuda_runtime), 4 nvjet kernel, 5-6 an ac2g flow (dropped), 7 a memcpy,
 * 8 record_param_comms (cpu_op with collective args), 9 an NCCL kernel (with collective args),
 * 10 a process_name metadata event (a track, not an event row), 11 Record Window End (dropped).
 */
class BadInputTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String PROFILER_STEP = "cpu_ops/user_annotation/ProfilerStep#2";
    private static final String MM = "cpu_ops/cpu_op/aten::mm";
    private static final String PARAM_COMMS = "cpu_ops/cpu_op/record_param_comms";
    private static final String LAUNCH = "launches/runtime/cudaLaunchKernel";
    private static final String NVJET = "gpu_ops/kernel/nvjet_sm90_tst_64x8_64x16";
    private static final String MEMCPY = "gpu_ops/memcpy/Memcpy DtoD (Device -> Device)";
    private static final String NCCL =
            "gpu_ops/kernel/ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
    /** Events 1-4, 7-9 of base.json: every one a row. */
    private static final List<String> BASE_ROWS = List.of(PROFILER_STEP, MM, PARAM_COMMS, LAUNCH, NVJET, MEMCPY, NCCL);

    @TempDir
    Path tmp;
    Path traces;
    Path db;

    @BeforeEach
    void dirs() throws IOException {
        traces = Files.createDirectories(tmp.resolve("traces"));
        db = tmp.resolve("store").resolve("steptrace.duckdb");
    }

    // ---- complete input, the baseline every damaged case is compared with ----

    @Test
    void completeFixtureLoadsEveryEvent() throws Exception {
        Path file = fixture("base.json");
        Cli.Result r = Cli.ingestJson(db, file);
        Cli.assertExit(0, r);
        JsonNode f = r.file("base.json");
        assertEquals("ingested", f.path("status").asText());
        assertTrue(f.path("reason").isNull());
        assertEquals(0, f.path("rank").asInt());
        assertCounts(f, 2, 1, 0, 1, 2, 1);
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertRows(s, BASE_ROWS);
            assertEquals(2, s.count("SELECT count(*) FROM comm_meta"));
            assertEquals(1, s.count("SELECT count(*) FROM devices"));
            assertEquals(1, s.count("SELECT count(*) FROM tracks"));
            assertEquals("ingested", s.string("SELECT status FROM files"));
            assertNull(s.string("SELECT damage_offset FROM files"));
            assertNull(s.string("SELECT anomalies FROM files"));
        }
    }

    // ---- truncated input: keep every complete event before the cut, partial, exit 0 ----

    @Test
    void truncatedGzipKeepsTheEventsBeforeTheCut() throws Exception {
        // gzip -9 of base.json cut to 800 of its 946 bytes: 2201 bytes of JSON survive, ending inside
        // event 9 (the NCCL kernel, bytes 2140-2511). Events 1-8 are complete.
        Path file = fixture("truncated.json.gz");
        assertEquals(2201, decompressibleBytes(file), "the fixture is not what this test was written for");
        Cli.Result r = Cli.ingestJson(db, file);
        Cli.assertExit(0, r);
        JsonNode f = r.file("truncated.json.gz");
        assertEquals("partial", f.path("status").asText());
        String reason = f.path("reason").asText();
        assertTrue(reason.contains("gzip data cut short (truncated)") && reason.endsWith("at byte 2201 of the decompressed JSON"),
                reason);
        assertCounts(f, 1, 1, 0, 1, 2, 1);
        assertTrue(r.err().contains("steptrace: partial: " + file + ": gzip data cut short"), r::describe);
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertRows(s, List.of(PROFILER_STEP, MM, PARAM_COMMS, LAUNCH, NVJET, MEMCPY));
            assertEquals(List.of("cpu_op"), s.strings("SELECT source FROM comm_meta"));
            assertEquals("partial", s.string("SELECT status FROM files"));
            assertEquals(2201, s.count("SELECT damage_offset FROM files"));
            assertEquals(reason, s.string("SELECT partial_reason FROM files"));
            // The header before the events is kept too.
            assertEquals(0, s.count("SELECT rank FROM files"));
            assertEquals(1, s.count("SELECT count(*) FROM devices"));
        }
    }

    @Test
    void aGzipWhoseCrcFailsKeepsItsEventsFlaggedAsPossiblyWrong() throws Exception {
        // Stored blocks: file byte 1088 is JSON byte 1073, the '1' of event 4's "dur": 12.345, now '9'.
        // The JSON stays valid; only the member's CRC-32 says the 92.345 is not what was written.
        Path file = fixture("gzip-stored-flip.json.gz");
        Cli.Result r = Cli.ingestJson(db, file);
        Cli.assertExit(0, r);
        String reason = r.file("gzip-stored-flip.json.gz").path("reason").asText();
        assertEquals("content may be wrong: gzip member 1 fails its CRC-32 check (its events from byte 0 of the"
                + " decompressed JSON on were kept, but any value in them may be wrong; nothing after it is read),"
                + " found at byte 2777 of the decompressed JSON", reason);
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals(92345, s.count("SELECT dur_ns FROM kernels WHERE name LIKE 'nvjet%'"));
            assertEquals(7, s.strings(StoreDb.EVENT_ROWS).size());
            assertEquals(2777, s.count("SELECT damage_offset FROM files"));
        }
    }

    @Test
    void aCorruptGzipKeepsNothingFromWhereItsJsonFirstBreaks() throws Exception {
        // File byte 577 xor 0x10: inflating goes on with garbage from inside event 5 (the flow at 1282)
        // on, the JSON breaks there, and the CRC-32 fails at the end. Read again up to 1282: events 1-4.
        Path file = fixture("gzip-garbage-flip.json.gz");
        Cli.Result r = Cli.ingestJson(db, file);
        Cli.assertExit(0, r);
        assertEquals("partial", r.file("gzip-garbage-flip.json.gz").path("status").asText());
        try (StoreDb s = StoreDb.open(db)) {
            assertRows(s, List.of(PROFILER_STEP, MM, LAUNCH, NVJET));
            assertEquals(1282, s.count("SELECT damage_offset FROM files"));
            assertTrue(s.string("SELECT partial_reason FROM files").startsWith("content may be wrong: gzip member 1"
                    + " fails its CRC-32 check, and the JSON it holds breaks"));
        }
    }

    @Test
    void jsonCutMidEventKeepsTheEventsBeforeIt() throws Exception {
        // base.json cut inside event 7 (the memcpy), after "du": events 1-6 are complete.
        Path file = fixture("cut-mid-event.json");
        long size = Files.size(file);
        Cli.Result r = Cli.ingestJson(db, file);
        Cli.assertExit(0, r);
        JsonNode f = r.file("cut-mid-event.json");
        assertEquals("partial", f.path("status").asText());
        String reason = f.path("reason").asText();
        assertTrue(reason.contains("truncated") && reason.endsWith("at byte " + size), reason);
        assertCounts(f, 1, 0, 0, 1, 1, 1);
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertRows(s, List.of(PROFILER_STEP, MM, LAUNCH, NVJET));
            assertEquals("partial", s.string("SELECT status FROM files"));
            assertEquals(size, s.count("SELECT damage_offset FROM files"));
        }
    }

    @Test
    void damagedEventIsSkippedAndTheRestKept() throws Exception {
        // Event 4 (nvjet) has "dur": 12.3#$% : it is lost, the reader goes on at event 5.
        Path file = fixture("damaged-middle.json");
        String text = Files.readString(file);
        long eventStart = text.lastIndexOf('{', text.indexOf("\"name\": \"nvjet"));
        long nextEvent = text.lastIndexOf('{', text.indexOf("\"ph\": \"s\""));
        Cli.Result r = Cli.ingestJson(db, file);
        Cli.assertExit(0, r);
        JsonNode f = r.file("damaged-middle.json");
        assertEquals("partial", f.path("status").asText());
        String reason = f.path("reason").asText();
        assertTrue(reason.startsWith("invalid JSON") && reason.endsWith("at byte " + eventStart), reason);
        assertCounts(f, 1, 1, 0, 1, 2, 1);
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertRows(s, List.of(PROFILER_STEP, MM, PARAM_COMMS, LAUNCH, MEMCPY, NCCL));
            assertEquals(eventStart, s.count("SELECT damage_offset FROM files"));
            Map<String, Long> anomalies = anomalies(s);
            assertEquals(1L, anomalies.get("damaged_regions_skipped"));
            assertEquals(nextEvent - eventStart, anomalies.get("bytes_skipped"));
        }
    }

    // ---- not a trace: skipped with a warning; nothing usable: exit 1 saying what was looked for ----

    @Test
    void notJsonIsSkipped() throws Exception {
        assertSkippedAlone("not-json.json", "not JSON (and not gzip)");
    }

    @Test
    void emptyFileIsSkipped() throws Exception {
        assertSkippedAlone("empty.json", "empty file");
    }

    @Test
    void jsonWithoutTraceEventsIsSkipped() throws Exception {
        assertSkippedAlone("no-trace-events.json", "JSON without \"traceEvents\"");
    }

    @Test
    void aFileFoundNotToBeATraceIsSkippedUnreadWhileUnchangedAndLoadedOnceItIsOne() throws Exception {
        fixture("base.json");
        Path notTrace = fixture("no-trace-events.json");
        Cli.Result first = Cli.ingestJson(db, traces);
        Cli.assertExit(0, first);
        assertEquals("JSON without \"traceEvents\"", first.file("no-trace-events.json").path("reason").asText());
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals(1, s.count("SELECT count(*) FROM non_traces"));
        }
        // A reason no reader writes: if the next ingest reports it, it did not read the file.
        try (java.sql.Connection c = DuckDb.connect(db, new java.util.Properties());
             java.sql.Statement s = c.createStatement()) {
            s.execute("UPDATE non_traces SET reason = 'planted'");
        }
        Cli.Result second = Cli.ingestJson(db, traces);
        Cli.assertExit(0, second);
        assertEquals("skipped", second.file("no-trace-events.json").path("status").asText());
        assertEquals("planted", second.file("no-trace-events.json").path("reason").asText());

        copyFixture("big-ids.json", notTrace);
        Cli.Result third = Cli.ingestJson(db, traces);
        Cli.assertExit(0, third);
        assertEquals("ingested", third.file("no-trace-events.json").path("status").asText());
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals(0, s.count("SELECT count(*) FROM non_traces"));
        }
    }

    @Test
    void emptyDirectoryExitsOneSayingWhatWasLookedFor() throws Exception {
        Path empty = Files.createDirectories(tmp.resolve("empty-dir"));
        Cli.Result r = Cli.ingestJson(db, empty);
        Cli.assertExit(1, r);
        assertEquals(0, r.json().path("files").size());
        assertNoUsableTraceMessage(r, empty);
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertEquals(0, s.count("SELECT count(*) FROM files"));
        }
    }

    @Test
    void directoryWithNoTraceExitsOneAndNamesEveryFile() throws Exception {
        fixture("not-json.json");
        fixture("empty.json");
        fixture("no-trace-events.json");
        Cli.Result r = Cli.ingestJson(db, traces);
        Cli.assertExit(1, r);
        assertEquals("skipped", r.file("not-json.json").path("status").asText());
        assertEquals("skipped", r.file("empty.json").path("status").asText());
        assertEquals("skipped", r.file("no-trace-events.json").path("status").asText());
        assertNoUsableTraceMessage(r, traces);
        // The table summary must not claim that the store is up to date.
        Cli.Result table = Cli.run("ingest", traces.toString(), "--db", db.toString(), "--quiet");
        Cli.assertExit(1, table);
        assertFalse(table.out().contains("up to date"), table::describe);
    }

    @Test
    void missingPathIsOneLineAndExitOne() throws Exception {
        Path missing = tmp.resolve("no-such-capture");
        Cli.Result r = Cli.ingestJson(db, missing);
        Cli.assertExit(1, r);
        assertEquals("steptrace: no such file or directory: " + missing + "\n", r.err());
    }

    // ---- values out of range never crash the load ----

    @Test
    void unescapedQuoteInAKernelNameIsRepairedWithTheNameIntact() throws Exception {
        // Event 4's name is written as "void k<"x">(int)" (Kineto before 2026-07 did not escape it).
        Path file = fixture("unescaped-quote.json");
        Cli.Result r = Cli.ingestJson(db, file);
        Cli.assertExit(0, r);
        JsonNode f = r.file("unescaped-quote.json");
        assertEquals("ingested", f.path("status").asText());
        assertCounts(f, 2, 1, 0, 1, 2, 1);
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertRows(s, List.of(PROFILER_STEP, MM, PARAM_COMMS, LAUNCH, "gpu_ops/kernel/void k<\"x\">(int)",
                    MEMCPY, NCCL));
            assertEquals("1020000|12345|100", s.string("SELECT (ts_ns - 1790857026000000000) || '|' || dur_ns"
                    + " || '|' || correlation FROM kernels WHERE name = 'void k<\"x\">(int)'"));
            assertEquals(Map.of("events_with_unescaped_quotes_repaired", 1L), anomalies(s));
        }
    }

    @Test
    void unescapedQuotesFollowedByCommasAreRepairedToo() throws Exception {
        // Event 2 named f("x", "y") with "Input type": ["c10::BFloat16", ""], event 3 named std::"x"::y,
        // event 4 named void k<"a", "b">(int): a quote followed by a comma or a colon is not always the end.
        Path file = fixture("unescaped-quotes-with-commas.json");
        Cli.Result r = Cli.ingestJson(db, file);
        Cli.assertExit(0, r);
        assertEquals("ingested", r.file("unescaped-quotes-with-commas.json").path("status").asText(), r::describe);
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertRows(s, List.of(PROFILER_STEP, "cpu_ops/cpu_op/f(\"x\", \"y\")", PARAM_COMMS,
                    "launches/runtime/std::\"x\"::y", "gpu_ops/kernel/void k<\"a\", \"b\">(int)", MEMCPY, NCCL));
            assertEquals(1790857026001010500L, s.count("SELECT ts_ns FROM cpu_events WHERE name = 'f(\"x\", \"y\")'"));
            assertEquals(Map.of("events_with_unescaped_quotes_repaired", 3L), anomalies(s));
        }
    }

    @Test
    void aNegativeRankIsIgnoredAndTheFileNamesRankTaken() throws Exception {
        // distributedInfo says rank -1 of 2; the file's name says rank 3.
        Cli.Result r = Cli.ingestJson(db, fixture("rank3-negative-rank.json"));
        Cli.assertExit(0, r);
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals("3|file_name|2", s.string("SELECT rank || '|' || rank_source || '|' || world_size FROM files"));
            assertEquals(Map.of("rank_out_of_range_ignored", 1L), anomalies(s));
        }
    }

    @Test
    void aWorldSizeOfZeroIsIgnoredAndTheRankKept() throws Exception {
        // distributedInfo says rank 0 of 0.
        Cli.Result r = Cli.ingestJson(db, fixture("world-size-zero.json"));
        Cli.assertExit(0, r);
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals("0|distributed_info|true", s.string("SELECT rank || '|' || rank_source || '|' || (world_size IS NULL)"
                    + " FROM files"));
            assertEquals(Map.of("world_size_out_of_range_ignored", 1L), anomalies(s));
        }
    }

    @Test
    void idsAbove2To63KeepTheirUnsignedValue() throws Exception {
        // Event 8: External id 2^63, Seq 10^23 - 1 (above 2^64), Comms Id 2^64 - 1;
        // event 9: External id 2^63, correlation 2^64 - 1, Comms Id 2^64 - 1.
        Path file = fixture("big-ids.json");
        Cli.Result r = Cli.ingestJson(db, file);
        Cli.assertExit(0, r);
        assertEquals("ingested", r.file("big-ids.json").path("status").asText());
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertRows(s, BASE_ROWS);
            // BIGINT columns hold the unsigned bit pattern, so ids still join; comm_meta.comms_id is UBIGINT.
            assertEquals(Long.parseUnsignedLong("18446744073709551615"),
                    s.count("SELECT correlation FROM kernels WHERE name LIKE 'ncclDevKernel%'"));
            assertEquals(Long.parseUnsignedLong("9223372036854775808"),
                    s.count("SELECT external_id FROM kernels WHERE name LIKE 'ncclDevKernel%'"));
            assertEquals(List.of("18446744073709551615", "18446744073709551615"),
                    s.strings("SELECT comms_id::VARCHAR FROM comm_meta ORDER BY source"));
            assertEquals(List.of("5"), s.strings("SELECT seq::VARCHAR FROM comm_meta WHERE source = 'kernel'"));
            assertEquals(java.util.Arrays.asList((String) null), s.strings("SELECT seq FROM comm_meta WHERE source = 'cpu_op'"));
            assertEquals(Map.of("ids_above_2^63_kept_as_unsigned", 5L, "integers_out_of_range_ignored", 1L),
                    anomalies(s));
        }
    }

    @Test
    void baseTimeAbove2To63IsIgnoredNotFatal() throws Exception {
        // "baseTimeNanoseconds": 17908570260000000000 (above 2^63): the events keep their relative times.
        Path file = fixture("huge-base-time.json");
        Cli.Result r = Cli.ingestJson(db, file);
        Cli.assertExit(0, r);
        assertEquals("ingested", r.file("huge-base-time.json").path("status").asText());
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertRows(s, BASE_ROWS);
            assertEquals(0, s.count("SELECT base_time_ns FROM files"));
            assertEquals(1000000, s.count("SELECT ts_ns FROM cpu_events WHERE name = 'ProfilerStep#2'"));
            assertEquals(Map.of("integers_out_of_range_ignored", 1L), anomalies(s));
        }
    }

    @Test
    void infAndNanValuesNeverCrashTheLoad() throws Exception {
        // Event 1 "ts": "inf" (no time: dropped, counted); event 3 "correlation": Infinity; event 4
        // "blocks per SM": "inf", occupancy NaN, warps Infinity; event 7 "dur": NaN, "bytes": -Infinity;
        // top level "weird_metric": NaN.
        Path file = fixture("non-finite.json");
        Cli.Result r = Cli.ingestJson(db, file);
        Cli.assertExit(0, r);
        JsonNode f = r.file("non-finite.json");
        assertEquals("ingested", f.path("status").asText());
        assertCounts(f, 2, 1, 0, 1, 2, 0);
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertRows(s, List.of(MM, PARAM_COMMS, LAUNCH, NVJET, MEMCPY, NCCL));
            assertEquals("0|null", s.string("SELECT dur_ns || '|' || coalesce(bytes::VARCHAR, 'null')"
                    + " FROM gpu_events WHERE kind = 'memcpy'"));
            assertNull(s.string("SELECT correlation FROM runtime_calls"));
            assertEquals("12345|132", s.string("SELECT dur_ns || '|' || grid_x FROM kernels WHERE name LIKE 'nvjet%'"));
            assertEquals("\"NaN\"", s.string("SELECT json_extract(metadata, '$.weird_metric') FROM files"));
            Map<String, Long> anomalies = anomalies(s);
            assertEquals(1L, anomalies.get("events_without_valid_ts"));
            assertEquals(1L, anomalies.get("events_without_valid_dur"));
        }
    }

    @Test
    void negativeDurationsAreKeptClampedAndCounted() throws Exception {
        // Event 2 "dur": -20.250, event 7 "dur": -0.001.
        Path file = fixture("negative-dur.json");
        Cli.Result r = Cli.ingestJson(db, file);
        Cli.assertExit(0, r);
        assertEquals("ingested", r.file("negative-dur.json").path("status").asText());
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertRows(s, BASE_ROWS);
            assertEquals(0, s.count("SELECT dur_ns FROM cpu_events WHERE name = 'aten::mm'"));
            assertEquals(0, s.count("SELECT dur_ns FROM gpu_events WHERE kind = 'memcpy'"));
            assertEquals(1790857026001010500L, s.count("SELECT ts_ns FROM cpu_events WHERE name = 'aten::mm'"));
            assertEquals(Map.of("negative_durations_clamped", 2L), anomalies(s));
        }
    }

    @Test
    void aNonObjectInDevicePropertiesDoesNotHideTheEvents() throws Exception {
        // "deviceProperties": [ {...}, null ]: the null is ignored, the trace is still a trace.
        Path file = fixture("device-list-with-null.json");
        Cli.Result r = Cli.ingestJson(db, file);
        Cli.assertExit(0, r);
        assertEquals("ingested", r.file("device-list-with-null.json").path("status").asText());
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertRows(s, BASE_ROWS);
            assertEquals(1, s.count("SELECT count(*) FROM devices"));
        }
    }

    // ---- the same trace more than once ----

    @Test
    void sameFileGivenTwiceIsLoadedOnce() throws Exception {
        Path file = fixture("base.json");
        Path sameViaDotDot = traces.resolve("..").resolve("traces").resolve("base.json");
        // The file, again, through "..", and through its directory.
        Cli.Result r = Cli.ingestJson(db, file, file, sameViaDotDot, traces);
        Cli.assertExit(0, r);
        assertEquals(1, r.json().path("files").size(), r::describe);
        assertEquals("ingested", r.file("base.json").path("status").asText());
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertEquals(1, s.count("SELECT count(*) FROM files"));
            assertRows(s, BASE_ROWS);
        }
    }

    @Test
    void sameContentAtTwoPathsIsLoadedOnce() throws Exception {
        fixture("base.json", "a.pt.trace.json");
        fixture("base.json", "b.pt.trace.json");
        Cli.Result r = Cli.ingestJson(db, traces);
        Cli.assertExit(0, r);
        assertEquals("ingested", r.file("a.pt.trace.json").path("status").asText());
        JsonNode copy = r.file("b.pt.trace.json");
        assertEquals("skipped", copy.path("status").asText());
        assertTrue(copy.path("reason").asText().contains("same content as a.pt.trace.json"), r::describe);
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertEquals(1, s.count("SELECT count(*) FROM files"));
            assertRows(s, BASE_ROWS);
        }
    }

    @Test
    void copyOfAnIngestedFileIsNotLoadedBesideIt() throws Exception {
        // b was ingested alone first; a copy of it then appears beside it and sorts first.
        Path b = fixture("base.json", "b.pt.trace.json");
        Cli.assertExit(0, Cli.ingestJson(db, b));
        fixture("base.json", "a.pt.trace.json");
        Cli.Result r = Cli.ingestJson(db, traces);
        Cli.assertExit(0, r);
        assertEquals("unchanged", r.file("b.pt.trace.json").path("status").asText(), r::describe);
        JsonNode copy = r.file("a.pt.trace.json");
        assertEquals("skipped", copy.path("status").asText(), r::describe);
        assertTrue(copy.path("reason").asText().contains("same content as b.pt.trace.json"), r::describe);
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertEquals(List.of(b.toRealPath().toString()), s.strings("SELECT path FROM files"));
            assertRows(s, BASE_ROWS);
        }
    }

    // ---- re-ingest: unchanged files are not read, changed files are replaced, failures leave nothing ----

    @Test
    void unchangedFilesAreReportedUnchangedAndNotRead() throws Exception {
        Path whole = fixture("base.json");
        Path cut = fixture("cut-mid-event.json");
        Cli.Result first = Cli.ingestJson(db, traces);
        Cli.assertExit(0, first);
        List<String> before;
        try (StoreDb s = StoreDb.open(db)) {
            before = s.strings("SELECT path || '|' || file_id || '|' || ingested_at || '|' || parse_seconds"
                    + " || '|' || status FROM files ORDER BY path");
        }
        Cli.Result again = Cli.ingestJson(db, traces);
        Cli.assertExit(0, again);
        for (Path p : List.of(whole, cut)) {
            JsonNode f = again.file(p.getFileName().toString());
            assertEquals("unchanged", f.path("status").asText());
            assertEquals(first.file(p.getFileName().toString()).path("counts"), f.path("counts"));
            assertEquals(0, f.path("rank").asInt());
        }
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            // Same rows, same file ids, same ingested_at and parse time: nothing was read or rewritten.
            assertEquals(before, s.strings("SELECT path || '|' || file_id || '|' || ingested_at || '|'"
                    + " || parse_seconds || '|' || status FROM files ORDER BY path"));
        }
    }

    @Test
    void changedFileReplacesItsRows() throws Exception {
        Path file = fixture("base.json", "rank0.pt.trace.json");
        Cli.assertExit(0, Cli.ingestJson(db, file));

        copyFixture("unescaped-quote.json", file);
        Cli.Result r = Cli.ingestJson(db, file);
        Cli.assertExit(0, r);
        assertEquals("ingested", r.file("rank0.pt.trace.json").path("status").asText());
        assertStoreHoldsOnly(r, List.of(PROFILER_STEP, MM, PARAM_COMMS, LAUNCH, "gpu_ops/kernel/void k<\"x\">(int)",
                MEMCPY, NCCL));

        copyFixture("cut-mid-event.json", file);
        r = Cli.ingestJson(db, file);
        Cli.assertExit(0, r);
        assertEquals("partial", r.file("rank0.pt.trace.json").path("status").asText());
        assertStoreHoldsOnly(r, List.of(PROFILER_STEP, MM, LAUNCH, NVJET));
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals(0, s.count("SELECT count(*) FROM comm_meta"));
            assertEquals("partial", s.string("SELECT status FROM files"));
        }

        copyFixture("base.json", file);
        r = Cli.ingestJson(db, file);
        Cli.assertExit(0, r);
        assertEquals("ingested", r.file("rank0.pt.trace.json").path("status").asText());
        assertStoreHoldsOnly(r, BASE_ROWS);
        try (StoreDb s = StoreDb.open(db)) {
            assertNull(s.string("SELECT damage_offset FROM files"));
            assertEquals(2, s.count("SELECT count(*) FROM comm_meta"));
        }
    }

    @Test
    void traceThatIsNoLongerATraceLeavesNoStaleRows() throws Exception {
        for (String notATrace : List.of("not-json.json", "no-trace-events.json")) {
            Path file = fixture("base.json", "rank0.pt.trace.json");
            Cli.assertExit(0, Cli.ingestJson(db, file));
            copyFixture(notATrace, file);
            Cli.Result r = Cli.ingestJson(db, file);
            Cli.assertExit(1, r);
            assertEquals("skipped", r.file("rank0.pt.trace.json").path("status").asText());
            assertTrue(r.file("rank0.pt.trace.json").path("reason").asText().contains("earlier ingest were removed"),
                    r::describe);
            try (StoreDb s = StoreDb.open(db)) {
                for (String table : List.of("files", "gpu_ops", "cpu_ops", "launches", "comm_meta", "names")) {
                    assertEquals(0, s.count("SELECT count(*) FROM " + table), table + " after " + notATrace);
                }
            }
        }
    }

    @Test
    void fileWhoseStoreWriteFailsLeavesNoRows() throws Exception {
        Path good = fixture("base.json", "rank0.pt.trace.json");
        Cli.assertExit(0, Cli.ingestJson(db, good));
        // Make the store refuse a second file that uses the same event names: its event rows are
        // written first, then its names break the unique index, so only a transaction keeps them out.
        try (Connection c = DuckDb.connect(db, new Properties());
             Statement st = c.createStatement()) {
            st.execute("CREATE UNIQUE INDEX test_poison ON names (name)");
        }
        Path other = Files.createDirectories(tmp.resolve("other"));
        Path bad = other.resolve("rank1.pt.trace.json");
        copyFixture("negative-dur.json", bad);
        Cli.Result r = Cli.ingestJson(db, bad);
        Cli.assertExit(1, r);
        JsonNode f = r.file("rank1.pt.trace.json");
        assertEquals("failed", f.path("status").asText());
        assertTrue(f.path("reason").asText().startsWith("store error: "), r::describe);
        assertTrue(r.err().contains("steptrace: failed: " + bad.toRealPath() + ": store error: "), r::describe);
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertEquals(List.of(good.toRealPath().toString()), s.strings("SELECT path FROM files"));
            assertRows(s, BASE_ROWS);
            assertEquals(2, s.count("SELECT count(*) FROM comm_meta"));
            assertEquals(1, s.count("SELECT count(*) FROM devices"));
            assertEquals(1, s.count("SELECT count(*) FROM tracks"));
        }

        // With a good file beside it, the run succeeds and the failed file still leaves nothing.
        Cli.Result mixed = Cli.ingestJson(db, good, bad);
        Cli.assertExit(0, mixed);
        assertEquals("unchanged", mixed.file("rank0.pt.trace.json").path("status").asText());
        assertEquals("failed", mixed.file("rank1.pt.trace.json").path("status").asText());

        // Once the store accepts it, the same file loads in full: the failure left nothing in the way.
        try (Connection c = DuckDb.connect(db, new Properties());
             Statement st = c.createStatement()) {
            st.execute("DROP INDEX test_poison");
        }
        Cli.Result retry = Cli.ingestJson(db, bad);
        Cli.assertExit(0, retry);
        assertEquals("ingested", retry.file("rank1.pt.trace.json").path("status").asText());
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertEquals(2, s.count("SELECT count(*) FROM files"));
            assertEquals(2 * BASE_ROWS.size(), s.strings(StoreDb.EVENT_ROWS).size());
        }
    }

    // ---- helpers ----

    private Path fixture(String name) throws IOException {
        return fixture(name, name);
    }

    private Path fixture(String name, String as) throws IOException {
        Path target = traces.resolve(as);
        copyFixture(name, target);
        return target;
    }

    private static void copyFixture(String name, Path target) throws IOException {
        try (InputStream in = BadInputTest.class.getResourceAsStream("/bad-input/" + name)) {
            assertNotNull(in, "no fixture " + name);
            Files.write(target, in.readAllBytes());
        }
    }

    private void assertSkippedAlone(String fixtureName, String reason) throws Exception {
        Path file = fixture(fixtureName);
        Cli.Result r = Cli.ingestJson(db, file);
        Cli.assertExit(1, r);
        JsonNode f = r.file(fixtureName);
        assertEquals("skipped", f.path("status").asText());
        assertEquals(reason, f.path("reason").asText());
        assertTrue(r.err().contains("steptrace: skipped: " + file.toRealPath() + ": " + reason), r::describe);
        assertNoUsableTraceMessage(r, file);
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertEquals(0, s.count("SELECT count(*) FROM files"));
            assertEquals(0, s.strings(StoreDb.EVENT_ROWS).size());
        }
    }

    private static void assertNoUsableTraceMessage(Cli.Result r, Path input) {
        assertTrue(r.err().contains("no usable trace in [" + input + "]"), r::describe);
        assertTrue(r.err().contains("looked for Kineto JSON traces, plain or gzip, with a \"traceEvents\" list"),
                r::describe);
    }

    private void assertStoreHoldsOnly(Cli.Result r, List<String> rows) throws Exception {
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertEquals(1, s.count("SELECT count(*) FROM files"));
            assertRows(s, rows);
            // Only names that some row uses: nothing left over from the previous content.
            assertEquals(rows.size(), s.count("SELECT count(*) FROM names"));
            JsonNode counts = r.json().path("files").get(0).path("counts");
            assertEquals(counts.path("kernel").asLong(), s.count("SELECT n_kernel FROM files"));
            assertEquals(counts.path("kernel").asLong(), s.count("SELECT count(*) FROM kernels"));
            assertEquals(counts.path("cpu_op").asLong(),
                    s.count("SELECT count(*) FROM cpu_ops WHERE kind = 'cpu_op'"));
        }
    }

    private static void assertRows(StoreDb s, List<String> expected) throws Exception {
        List<String> want = new ArrayList<>(expected);
        List<String> got = new ArrayList<>(s.strings(StoreDb.EVENT_ROWS));
        want.sort(null);
        got.sort(null);
        assertEquals(want, got);
    }

    /** kernel, memcpy, memset, runtime, cpu_op, annotation as ingest --json reports them. */
    private static void assertCounts(JsonNode file, long kernel, long memcpy, long memset, long runtime, long cpuOp,
                                     long annotation) {
        Map<String, Long> want = new LinkedHashMap<>();
        want.put("kernel", kernel);
        want.put("memcpy", memcpy);
        want.put("memset", memset);
        want.put("runtime", runtime);
        want.put("cpu_op", cpuOp);
        want.put("annotation", annotation);
        Map<String, Long> got = new LinkedHashMap<>();
        file.path("counts").properties().forEach(e -> got.put(e.getKey(), e.getValue().asLong()));
        assertEquals(want, got);
    }

    private static Map<String, Long> anomalies(StoreDb s) throws Exception {
        String json = s.string("SELECT anomalies FROM files");
        Map<String, Long> out = new LinkedHashMap<>();
        if (json != null) {
            JSON.readTree(json).properties().forEach(e -> out.put(e.getKey(), e.getValue().asLong()));
        }
        return out;
    }

    /** How many bytes of JSON a (possibly truncated) gzip file yields before it breaks. */
    private static long decompressibleBytes(Path gz) throws IOException {
        long n = 0;
        byte[] buf = new byte[8192];
        try (InputStream in = new GZIPInputStream(Files.newInputStream(gz))) {
            int r;
            while ((r = in.read(buf)) > 0) {
                n += r;
            }
        } catch (IOException expected) {
            // the cut
        }
        return n;
    }
}
