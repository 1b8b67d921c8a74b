package dev.steptrace.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * Finds the trace files under the paths given on the command line (directories recursively) and
 * recognizes each by its first bytes, not its name: a Kineto trace is JSON (plain or gzip) that
 * starts with an object or array. Everything else is reported as skipped, with the reason.
 */
public final class TraceDiscovery {
    private TraceDiscovery() {}

    /** A file that looks like a trace; {@code captureDir} is the directory that identifies its capture. */
    public record Found(Path path, Path captureDir, TraceFormat format, boolean compressed) {}

    public record Skipped(Path path, String reason) {}

    public record Result(List<Found> traces, List<Skipped> skipped) {}

    /**
     * @param exclude files never to treat as input (the store itself when it lies under an input)
     * @throws NoSuchFileException when an input path does not exist
     */
    public static Result discover(List<Path> inputs, Set<Path> exclude) throws IOException {
        Map<Path, Found> traces = new LinkedHashMap<>();
        List<Skipped> skipped = new ArrayList<>();
        for (Path input : inputs) {
            Path abs = input.toAbsolutePath().normalize();
            if (!Files.exists(abs)) {
                throw new NoSuchFileException(input.toString(), null, "no such file or directory");
            }
            List<Path> files;
            if (Files.isDirectory(abs)) {
                try (Stream<Path> walk = Files.walk(abs)) {
                    files = walk.filter(Files::isRegularFile).sorted().toList();
                }
            } else {
                files = List.of(abs);
            }
            for (Path file : files) {
                Path real = file.toRealPath();
                if (traces.containsKey(real) || exclude.contains(real) || isStoreFile(real)) {
                    continue;
                }
                String notTrace = sniff(real);
                if (notTrace == null) {
                    traces.put(real, new Found(real, real.getParent(), TraceFormat.KINETO, isGzip(real)));
                } else {
                    skipped.add(new Skipped(real, notTrace));
                }
            }
        }
        return new Result(new ArrayList<>(traces.values()), skipped);
    }

    private static boolean isStoreFile(Path p) {
        String name = p.getFileName().toString();
        return name.endsWith(".duckdb") || name.endsWith(".duckdb.wal");
    }

    private static boolean isGzip(Path p) throws IOException {
        try (InputStream in = Files.newInputStream(p)) {
            return in.read() == 0x1f && in.read() == 0x8b;
        }
    }

    /** Null when the file looks like a Kineto trace, else why it is not one. */
    static String sniff(Path p) throws IOException {
        if (Files.size(p) == 0) {
            return "empty file";
        }
        if (isGzip(p)) {
            try (InputStream raw = Files.newInputStream(p)) {
                InputStream in;
                try {
                    in = new GZIPInputStream(raw);
                } catch (IOException e) {
                    // Nothing after the header survives, so nothing tells that this was a trace.
                    return "gzip file cut short in its header (truncated before any content)";
                }
                return jsonStart(in, "gzip file whose content is not JSON");
            } catch (IOException e) {
                // A gzip cut in its first block: still a (damaged) trace candidate; the reader reports it.
                return null;
            }
        }
        try (InputStream in = Files.newInputStream(p)) {
            byte[] head = in.readNBytes(16);
            if (head.length >= 15 && new String(head, 0, 15, java.nio.charset.StandardCharsets.US_ASCII)
                    .equals("SQLite format 3")) {
                return "SQLite database (Nsight Systems exports are not supported yet)";
            }
        }
        try (InputStream in = Files.newInputStream(p)) {
            return jsonStart(in, "not JSON (and not gzip)");
        }
    }

    private static String jsonStart(InputStream in, String otherwise) throws IOException {
        int c;
        int read = 0;
        do {
            c = in.read();
            read++;
        } while (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0xEF || c == 0xBB || c == 0xBF);
        if (c < 0 && read == 1) {
            return "empty file";
        }
        return c == '{' || c == '[' ? null : otherwise;
    }
}
