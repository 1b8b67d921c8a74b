package dev.steptrace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What the progress display writes: its line's figures, plain lines off a terminal, nothing when quiet. */
class ProgressTest {
    @Test
    void gzipProgressIsInUncompressedBytesWithTheShareOfTheFiles() {
        // 50 MB of a 200 MB gzip file read in 2 s, inflated to 1 GB of JSON: 500 MB/s of JSON, a quarter
        // done, 150 MB left at 25 MB/s of file: 6 s.
        Progress p = new Progress(new PrintStream(new ByteArrayOutputStream()), false, 60_000, "ingest",
                new AtomicLong(50_000_000), new AtomicLong(200_000_000), new AtomicLong(1_000_000_000),
                new AtomicLong(3_000_000));
        try {
            assertEquals("ingest: 1.0 GB of JSON (25% of 200 MB of files), 500 MB/s, 1.50 M events/s, ETA 0:06",
                    p.line(2.0));
        } finally {
            p.close();
        }
    }

    @Test
    void withoutUncompressedCountsTheRateIsOfTheBytesDone() {
        Progress p = new Progress(new PrintStream(new ByteArrayOutputStream()), false, 60_000, "synth",
                new AtomicLong(300_000_000), new AtomicLong(0), null, null);
        try {
            assertEquals("synth: 300 MB, 100 MB/s", p.line(3.0));
        } finally {
            p.close();
        }
    }

    @Test
    void offATerminalItWritesWholePrefixedLines() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Progress p = new Progress(err, false, 10, "ingest", new AtomicLong(1), new AtomicLong(2), new AtomicLong(1),
                new AtomicLong(0));
        String text;
        try {
            // Waits for the display's thread to write (not a measurement: any delay passes).
            long until = System.nanoTime() + 30_000_000_000L;
            do {
                Thread.sleep(20);
                text = bytes.toString(StandardCharsets.UTF_8);
            } while (text.split("\n").length < 2 && System.nanoTime() < until);
        } finally {
            p.close();
        }
        String[] lines = text.split("\n");
        assertTrue(lines.length >= 2, text);
        for (String line : lines) {
            assertTrue(line.startsWith("steptrace: ingest: 1 B of JSON (50% of 2 B of files), "), line);
            assertFalse(line.contains("\r") || line.contains("\u001b"), line);
        }
    }

    @Test
    void workWithoutAnAmountShowsTheWholeSecondsTaken() {
        Progress p = new Progress(new PrintStream(new ByteArrayOutputStream()), false, 60_000, "analysing", null, null,
                null, null);
        try {
            assertEquals("analysing: 0 s", p.line(0.4));
            assertEquals("analysing: 12 s", p.line(12.9));
        } finally {
            p.close();
        }
    }

    @Test
    void quietShowsNothing() {
        assertNull(Progress.start(true, "ingest", new AtomicLong(), new AtomicLong(), new AtomicLong(), new AtomicLong()));
        assertNull(Progress.startTimer(true, "analysing"));
    }
}
