package dev.steptrace.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MarkdownReportWriterTest {
    private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    /** Kept after the run, for people to read (and to preview the Markdown). */
    static final Path out = Path.of("target", "markdown-report");
    static List<Path> written;
    static String md;

    @BeforeAll
    static void write() throws IOException {
        if (Files.isDirectory(out)) {
            try (var files = Files.list(out)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
        }
        written = new MarkdownReportWriter().write(ReportFixtures.kimi(), out);
        assertEquals(out.resolve("report.md"), written.get(0));
        md = Files.readString(written.get(0));
    }

    @Test
    void opensWithTheStepTimeAndItsParts() {
        List<String> lines = md.lines().toList();
        int first = lines.indexOf("| Part | ms / step | share | rank 6 ms | share |");
        assertTrue(first > 0 && first < 14, "step-time table near the top: " + first);
        assertTrue(lines.subList(0, first).stream().noneMatch(l -> l.startsWith("## ") && !l.equals("## Where the step goes")));
        assertTrue(lines.contains("### Decode: **25.00 ms** per step (median 24.90, p90 25.60), pace set by rank 6"));
        assertTrue(lines.subList(0, first).contains("**Exposed all-reduce transfer takes 32.3% of the step (8.07 ms):"
                + " overlapping it with compute hides it; a faster interconnect shortens it.**"));
        // the fixture's parts, largest first; the pace rank's column repeats them (the fixture gives it the same)
        assertEquals(List.of(
                "| AllReduce, exposed | 8.07 | 32.3% | 8.07 | 32.3% |",
                "| Attention | 3.32 | 13.3% | 3.32 | 13.3% |",
                "| Waiting for other ranks | 3.10 | 12.4% | 3.10 | 12.4% |"), lines.subList(first + 2, first + 5));
        assertEquals("| **Step time** | **25.00** | **100.0%** | **25.00** | **100.0%** |", lines.get(first + 13));
    }

    @Test
    void thenTheKernelTimeInTimeOrder() {
        List<String> lines = md.lines().toList();
        int first = lines.indexOf("| Category | ms / step | share | calls / step |");
        assertTrue(first > 0, "kernel-time table");
        assertEquals(List.of(
                "| AllReduce (NCCL + custom) | 11.17 | 51.5% | 127 |",
                "| Attention | 3.32 | 15.3% | 61 |",
                "| Other GEMMs (cuBLAS, CUTLASS, nvjet) | 2.90 | 13.4% | 244 |",
                "| MoE GEMMs (Marlin, fused\\_moe, grouped) | 2.40 | 11.1% | 122 |",
                "| MoE routing (gating, top-k, align/sort) | 0.99 | 4.5% | 183 |",
                "| Everything else | 0.92 | 4.2% | 310 |",
                "| **Total** | **21.70** | **100.0%** | **1047** |"), lines.subList(first + 2, first + 9));
        List<String> sections = lines.stream().filter(l -> l.startsWith("## ")).toList();
        assertEquals(List.of("## Where the step goes", "## Kernel time by category", "## Per rank", "## Per step",
                "## Collectives", "## Top kernels", "## By op, annotation and module", "## How close to the hardware", "## Idle time and the CPU side",
                "## Capture-quality warnings", "## Capture"), sections);
    }

    @Test
    void everyTableIsWellFormed() {
        List<List<String>> tables = tables(md);
        assertTrue(tables.size() >= 15, "tables: " + tables.size());
        for (List<String> table : tables) {
            int cells = cells(table.get(0));
            assertTrue(table.get(1).matches("\\|(\\s*:?-{3,}:?\\s*\\|)+"), "separator row: " + table.get(1));
            for (String row : table) {
                assertEquals(cells, cells(row), "cells in\n" + row + "\nof table\n" + String.join("\n", table));
            }
        }
    }

    @Test
    void kernelNamesAreCodeSpansThatCannotBreakTheTable() {
        assertTrue(md.contains("| `void k<a, b>(x&)` | Attention / decode\\_attention | `attn.generic` |"), "name in a code span");
        // a pipe inside the code span is escaped for GFM tables; backticks in the name get a longer fence
        assertTrue(md.contains("| ``fused_moe\\|marlin<`int4`>`` |"), md);
        // long names are shortened in the table, numbered, and given in full in a details block
        assertTrue(md.contains("| `void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm:…` [1] |"));
        String details = md.substring(md.indexOf("<details><summary>Full names of the shortened kernels</summary>"));
        assertTrue(details.contains("1. `" + ReportFixtures.LONG_NAME + "`"), details);
        // text outside code spans is escaped: the warning's <...> & cannot become HTML
        assertTrue(md.contains("12 kernels have no launch \\<in the trace\\> \\& were attributed by GPU time window"));
        assertFalse(md.contains("null"));
    }

    @Test
    void nullsRenderAsNotAvailable() {
        assertTrue(md.contains("| Decode | `all_gather` | 1 | 25.3 | n/a | n/a | n/a | n/a | n/a |"), md);
        assertTrue(md.contains("| Busy (union of kernel intervals) | n/a | n/a | n/a | n/a | n/a |"));
        assertTrue(md.contains("| 7 | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a |"));
    }

    @Test
    void chartsArePngFilesBesideTheReportLinkedRelatively() throws IOException {
        Matcher links = Pattern.compile("!\\[[^\\]]*\\]\\(([^)]+)\\)").matcher(md);
        List<String> targets = new ArrayList<>();
        while (links.find()) {
            targets.add(links.group(1));
        }
        // the step time per rank first (several ranks: decode; one rank with prefill steps: its steps), then the
        // kernel shares, then the steps of the phase with several ranks
        assertEquals(List.of("chart-decode-ranks.png", "chart-prefill-ranks.png", "chart-decode-shares.png",
                "chart-prefill-shares.png", "chart-decode-steps.png", "chart-prefill-steps.png"), targets);
        assertEquals(7, written.size());
        for (String target : targets) {
            Path png = out.resolve(target);
            assertTrue(written.contains(png), target);
            byte[] head = Arrays.copyOf(Files.readAllBytes(png), PNG_MAGIC.length);
            assertArrayEquals(PNG_MAGIC, head, target + " is a PNG");
            BufferedImage image = ImageIO.read(png.toFile());
            assertNotNull(image, target + " decodes");
            assertTrue(image.getWidth() >= 700 && image.getHeight() >= 300, target + " " + image.getWidth() + "x" + image.getHeight());
        }
    }

    @Test
    void anEmptyReportRenders(@TempDir Path dir) throws IOException {
        List<Path> files = new MarkdownReportWriter().write(ReportFixtures.empty(), dir);
        assertEquals(1, files.size(), "no charts without phases");
        String empty = Files.readString(files.get(0));
        assertTrue(empty.contains("_No steps were found in this capture"));
        assertTrue(empty.contains("| `no_steps` |"));
        assertTrue(empty.contains("- **World size:** n/a"));
        assertFalse(empty.contains("null"));
    }

    /** Blocks of consecutive lines that start with a pipe. */
    static List<List<String>> tables(String markdown) {
        List<List<String>> tables = new ArrayList<>();
        List<String> current = null;
        for (String line : markdown.lines().toList()) {
            if (line.startsWith("|")) {
                if (current == null) {
                    current = new ArrayList<>();
                    tables.add(current);
                }
                current.add(line);
            } else {
                current = null;
            }
        }
        return tables;
    }

    /** Cells in a GFM table row: unescaped pipes (code spans included, as GFM splits there too) minus one. */
    static int cells(String row) {
        assertTrue(row.startsWith("|") && row.endsWith("|") && !row.endsWith("\\|"), "row must start and end with a pipe: " + row);
        int pipes = 0;
        for (int i = 0; i < row.length(); i++) {
            char c = row.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '|') {
                pipes++;
            }
        }
        return pipes - 1;
    }
}
