package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * How many threads scan each file's event list: only with one or two files at once, the cores of a file's
 * share that its insert thread leaves when two or more, four at most (docs/performance.md,
 * "Why the code is as it is"); 1 means the file's own thread alone.
 */
class ScanThreadsTest {
    @ParameterizedTest(name = "{0} cores, {1} file(s) at once: {2}")
    @CsvSource({
        "2, 1, 1",   // the insert and read-ahead threads already use the second core
        "3, 1, 2",
        "4, 1, 3",
        "8, 1, 4",
        "64, 1, 4",  // past four the insert thread is the slower one
        "8, 2, 3",
        "6, 2, 2",
        "4, 2, 1",
        "64, 3, 1",  // more files at once use the cores themselves
    })
    void chosenFromTheCoresAndTheFiles(int cores, int files, int expected) {
        assertEquals(expected, Ingestor.scanThreads(cores, files, new IngestOptions(files, false, true)));
    }

    /** Files at once: the fewest of those asked for, those there are and one per 32 MiB of heap. */
    @ParameterizedTest(name = "{0} asked, {1} files, {2} MiB of heap: {3}")
    @CsvSource({
        "64, 24, 512, 16",
        "64, 24, 455, 14",
        "2, 24, 512, 2",
        "64, 3, 512, 3",
        "64, 24, 16, 1",
    })
    void filesAtOnceAreAsManyAsTheHeapHolds(int asked, int files, long heapMib, int expected) {
        assertEquals(expected, Ingestor.filesAtOnce(asked, files, heapMib << 20));
    }

    /** Bytes read ahead per file: all files' together a sixteenth of the heap, 2-16 MiB each. */
    @ParameterizedTest(name = "{0} file(s) at once, {1} MiB of heap: {2} MiB")
    @CsvSource({
        "1, 512, 16",   // 32 MiB, at most 16
        "2, 512, 16",
        "4, 512, 8",
        "16, 512, 2",
        "32, 512, 2",   // 1 MiB, at least 2
        "1, 96, 6",
    })
    void readAheadIsASixteenthOfTheHeapAcrossTheFiles(int filesAtOnce, long heapMib, int expectedMib) {
        assertEquals(expectedMib << 20, Ingestor.readAheadBytes(filesAtOnce, heapMib << 20));
    }

    /**
     * Files that keep a file thread busy (and so decide the helper threads): those of a quarter of the largest's
     * size or more, as many as load at once at most. Sizes in MB, largest first.
     */
    @ParameterizedTest(name = "{0} MB, {1} at once: {2}")
    @CsvSource({
        "'1000 0.02', 2, 1",       // a trace beside a small JSON file: the trace alone
        "'1000 250', 2, 2",        // a quarter of the largest counts
        "'1000 249 10', 2, 1",
        "'400 400 400', 2, 2",     // no more than load at once
        "'400 400 400', 8, 3",
        "'5', 1, 1",
    })
    void busyFilesAreThoseOfAQuarterOfTheLargestOrMore(String megabytes, int atOnce, int expected) {
        List<Long> sizes = Arrays.stream(megabytes.split(" ")).map(m -> (long) (Double.parseDouble(m) * 1e6)).toList();
        assertEquals(expected, Ingestor.busyFiles(sizes, atOnce));
    }

    @ParameterizedTest
    @CsvSource({"2, 2", "3, 3"})
    void theOptionsMaySay(int cores, int asked) {
        assertEquals(asked, Ingestor.scanThreads(cores, 1, new IngestOptions(1, false, true, asked)));
    }
}
