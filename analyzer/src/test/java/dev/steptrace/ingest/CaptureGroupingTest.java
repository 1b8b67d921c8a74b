package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.ingest.CaptureGrouping.Member;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The grouping rule on files described by hand (what the traces would say): which files are one run,
 * which are apart, and when it cannot tell.
 */
class CaptureGroupingTest {
    private static final Path DIR = Path.of("/traces/mixed");
    private static final Set<String> H200 = Set.of("NVIDIA H200");
    private static final Set<String> A100 = Set.of("NVIDIA A100-SXM4-80GB");
    /** 2026-10-22 13:45:10 UTC, in ns: a Kineto trace's absolute time. */
    private static final long T0 = 1_792_676_710_000_000_000L;
    private static final long SECOND = 1_000_000_000L;

    private static Member kineto(String file, Integer worldSize, Integer rank, Set<String> devices, long first, long last) {
        return new Member(file.hashCode(), DIR.resolve(file), "kineto", worldSize, rank, devices, first, last);
    }

    private static List<List<String>> names(CaptureGrouping.Result r) {
        return r.groups().stream().map(g -> g.stream().map(m -> m.path().getFileName().toString()).toList()).toList();
    }

    @Test
    void theRanksOfOneRunAreOneCapture() {
        CaptureGrouping.Result r = CaptureGrouping.group(List.of(
                kineto("rank1.json.gz", 2, 1, H200, T0 + 44_000, T0 + SECOND / 2),
                kineto("rank0.json.gz", 2, 0, H200, T0, T0 + SECOND / 2)));
        assertEquals(List.of(List.of("rank0.json.gz", "rank1.json.gz")), names(r));
        assertEquals(List.of(), r.warnings());
    }

    @Test
    void twoRunsOfTheSameSetupSideBySideAreTwoCapturesAndAnUnrelatedTraceAThird() {
        // The sample captures' shape: graph-nccl-simple, then graph-nccl-ll 198 s later, 0.4 s each; and
        // an A100 trace with no world size from another year.
        CaptureGrouping.Result r = CaptureGrouping.group(List.of(
                kineto("ll-rank0.json.gz", 2, 0, H200, T0 + 198 * SECOND, T0 + 198 * SECOND + 400_000_000),
                kineto("ll-rank1.json.gz", 2, 1, H200, T0 + 198 * SECOND, T0 + 198 * SECOND + 400_000_000),
                kineto("simple-rank0.json.gz", 2, 0, H200, T0, T0 + 414_000_000),
                kineto("simple-rank1.json.gz", 2, 1, H200, T0, T0 + 414_000_000),
                kineto("alexnet.json.gz", null, 0, A100, T0 - 400L * 86400 * SECOND, T0 - 400L * 86400 * SECOND + 43 * SECOND)));
        assertEquals(List.of(List.of("alexnet.json.gz"), List.of("simple-rank0.json.gz", "simple-rank1.json.gz"),
                List.of("ll-rank0.json.gz", "ll-rank1.json.gz")), names(r), "ordered by first event");
        assertEquals(List.of(), r.warnings());
    }

    @Test
    void anythingThatTellsRunsApartKeepsTwoFilesApart() {
        Member rank0 = kineto("a.json", 2, 0, H200, T0, T0 + SECOND);
        assertTrue(CaptureGrouping.sameRun(rank0, kineto("b.json", 2, 1, H200, T0, T0 + SECOND)));
        assertTrue(CaptureGrouping.sameRun(rank0, kineto("b.json", null, null, Set.of(), T0, T0 + SECOND)),
                "what a trace does not say contradicts nothing");
        assertEquals(false, CaptureGrouping.sameRun(rank0, kineto("b.json", 2, 0, H200, T0, T0 + SECOND)), "same rank");
        assertEquals(false, CaptureGrouping.sameRun(rank0, kineto("b.json", 4, 1, H200, T0, T0 + SECOND)), "world size");
        assertEquals(false, CaptureGrouping.sameRun(rank0, kineto("b.json", 2, 1, A100, T0, T0 + SECOND)), "GPU model");
        assertEquals(false, CaptureGrouping.sameRun(rank0,
                new Member(2, DIR.resolve("b.sqlite"), "nsys", 2, 1, H200, T0, T0 + SECOND)), "Kineto and nsys");
        assertEquals(false, CaptureGrouping.sameRun(rank0, new Member(2, DIR.resolve("b.json"), "kineto", 2, 1, H200, null, null)),
                "a file without events");
    }

    @Test
    void clocksOfDifferentHostsMayDisagreeByUpToTheSlack() {
        long slack = CaptureGrouping.SAME_RUN_SLACK_NS;
        Member rank0 = kineto("a.json", 2, 0, H200, T0, T0 + SECOND);
        assertTrue(CaptureGrouping.sameRun(rank0, kineto("b.json", 2, 1, H200, T0 + SECOND + slack, T0 + 3 * SECOND)));
        assertEquals(false, CaptureGrouping.sameRun(rank0,
                kineto("b.json", 2, 1, H200, T0 + SECOND + slack + 1, T0 + 3 * SECOND)));
        assertEquals(false, CaptureGrouping.sameRun(kineto("b.json", 2, 1, H200, T0 + SECOND + slack + 1, T0 + 3 * SECOND),
                rank0), "the same either way round");
    }

    @Test
    void filesThatCouldBeRanksOfTwoRunsAreEachACaptureOfTheirOwnWithOneLineSayingWhy() {
        // A slice of rank 0 beside the whole rank 0 and rank 1: which rank 0 goes with rank 1?
        CaptureGrouping.Result r = CaptureGrouping.group(List.of(
                kineto("rank0.json.gz", 2, 0, H200, T0, T0 + SECOND),
                kineto("rank0_slice.json.gz", 2, 0, H200, T0, T0 + SECOND / 10),
                kineto("rank1.json.gz", 2, 1, H200, T0, T0 + SECOND)));
        assertEquals(Set.of(List.of("rank0.json.gz"), List.of("rank0_slice.json.gz"), List.of("rank1.json.gz")),
                new HashSet<>(names(r)));
        assertEquals(1, r.warnings().size());
        String w = r.warnings().get(0);
        assertTrue(w.startsWith(DIR + ": rank0.json.gz, rank0_slice.json.gz, rank1.json.gz could be ranks of more"
                + " than one run"), w);
    }

    /** Runs placed apart in time, their rank files shuffled: grouping finds each run, whatever the order. */
    @Property(tries = 60)
    void runsApartInTimeAreFoundInAnyOrder(@ForAll @IntRange(min = 1, max = 5) int runs,
                                           @ForAll @IntRange(min = 1, max = 8) int ranks,
                                           @ForAll long seed) {
        Random rnd = new Random(seed);
        List<Member> files = new ArrayList<>();
        List<Set<String>> expected = new ArrayList<>();
        long start = T0;
        for (int run = 0; run < runs; run++) {
            long length = SECOND / 10 + rnd.nextInt(5_000) * 1_000_000L;
            Set<String> members = new HashSet<>();
            for (int rank = 0; rank < ranks; rank++) {
                String file = "run" + run + "-rank" + rank + ".json";
                // Each rank starts within a few ms of the others and ends within the run.
                long first = start + rnd.nextInt(5_000_000);
                files.add(kineto(file, ranks, rank, H200, first, start + length - rnd.nextInt(5_000_000)));
                members.add(file);
            }
            expected.add(members);
            start += length + CaptureGrouping.SAME_RUN_SLACK_NS + 1 + rnd.nextInt(100) * SECOND;
        }
        Collections.shuffle(files, rnd);
        CaptureGrouping.Result r = CaptureGrouping.group(files);
        assertEquals(List.of(), r.warnings());
        List<Set<String>> found = names(r).stream().map(g -> (Set<String>) new HashSet<>(g)).toList();
        assertEquals(expected, found, "one capture per run, in time order");
    }

    @Test
    void aDirectoryOfOneCaptureIsNamedAfterIt() {
        List<List<Member>> groups = CaptureGrouping.group(List.of(kineto("rank0.json", 2, 0, H200, T0, T0 + SECOND),
                kineto("rank1.json", 2, 1, H200, T0, T0 + SECOND))).groups();
        assertEquals(List.of("mixed"), CaptureNames.forDirectory(DIR, groups, n -> false));
    }

    @Test
    void severalCapturesOfADirectoryAreNamedByTheirFileOrTheirStart() {
        List<List<Member>> groups = CaptureGrouping.group(List.of(
                kineto("rank0.pt.trace.json.gz", 2, 0, H200, T0, T0 + SECOND),
                kineto("rank1.pt.trace.json.gz", 2, 1, H200, T0, T0 + SECOND),
                kineto("hta_alexnet_cuda_sync.json.gz", null, 0, A100, T0 + 60 * SECOND, T0 + 61 * SECOND),
                kineto("relative-rank0.json", 2, 0, H200, 5_000_000_000L, 6_000_000_000L),
                kineto("relative-rank1.json", 2, 1, H200, 5_000_000_000L, 6_000_000_000L))).groups();
        assertEquals(List.of("mixed-run1", "mixed-20261022-134510", "mixed-hta_alexnet_cuda_sync"),
                CaptureNames.forDirectory(DIR, groups, n -> false));
        // A name another directory's capture has is not reused.
        assertEquals(List.of("mixed-run1", "mixed-20261022-134510-2", "mixed-hta_alexnet_cuda_sync"),
                CaptureNames.forDirectory(DIR, groups, n -> n.equals("mixed-20261022-134510")));
        assertEquals("mixed-rank1", CaptureNames.forFile(DIR.resolve("rank1.pt.trace.json.gz"), n -> false));
        assertEquals("mixed-rank1-2", CaptureNames.forFile(DIR.resolve("rank1.sqlite"), n -> n.equals("mixed-rank1")));
    }
}
