package dev.steptrace.ingest;

import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Capture names: what output folders ({@code steptrace-out/<name>/}) and lookups by name use, so each
 * is unique in the store and says where the capture came from (docs/schema.md, "Captures"):
 * <ul>
 *   <li>the directory's name, when the directory holds one capture;</li>
 *   <li>when it holds several: the directory's name, a dash, and for a capture of one file the file's
 *       name without its trace suffixes ({@code .pt.trace.json.gz}...), for a capture of several files
 *       the UTC time of its first event ({@code 20261022-134510}), or {@code run1}, {@code run2}... when
 *       the traces carry no absolute time;</li>
 *   <li>one file taken alone out of a capture of several ({@code report FILE}): the directory's name, a
 *       dash, and the file's name without its trace suffixes;</li>
 *   <li>a name already taken gets {@code -2}, {@code -3}... (a directory of the same name elsewhere).</li>
 * </ul>
 */
public final class CaptureNames {
    private static final DateTimeFormatter STARTED = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);
    /** Timestamps before 2000-01-01 are relative to the trace's own start, not the epoch: no date in them. */
    private static final long EPOCH_2000_NS = 946_684_800_000_000_000L;
    private static final Pattern TRACE_SUFFIX = Pattern.compile(
            "(\\.pt\\.trace)?(\\.json)?(\\.gz)?$|\\.(sqlite|arrow|parquet)$", Pattern.CASE_INSENSITIVE);

    private CaptureNames() {}

    /**
     * The names of a directory's captures, in the order of {@code groups} (as {@link CaptureGrouping#group}
     * orders them), none of them {@code taken} elsewhere.
     */
    public static List<String> forDirectory(Path dir, List<List<CaptureGrouping.Member>> groups, Predicate<String> taken) {
        String base = dirName(dir);
        List<String> names = new ArrayList<>();
        Set<String> used = new HashSet<>();
        int runs = 0;
        for (List<CaptureGrouping.Member> g : groups) {
            String name;
            if (groups.size() == 1) {
                name = base;
            } else if (g.size() == 1) {
                name = base + "-" + stem(g.get(0).path());
            } else {
                Long start = CaptureGrouping.start(g);
                runs++;
                name = base + "-" + (start != null && start >= EPOCH_2000_NS
                        ? STARTED.format(Instant.ofEpochSecond(0, start)) : "run" + runs);
            }
            name = unique(name, n -> used.contains(n) || taken.test(n));
            used.add(name);
            names.add(name);
        }
        return names;
    }

    /** The name of one file taken alone out of a capture of several. */
    public static String forFile(Path file, Predicate<String> taken) {
        return unique(dirName(file.getParent()) + "-" + stem(file), taken);
    }

    /** A file's name without the suffixes traces carry ({@code rank0.123.pt.trace.json.gz}: {@code rank0.123}). */
    static String stem(Path file) {
        String name = file.getFileName().toString();
        String stem = TRACE_SUFFIX.matcher(name).replaceFirst("");
        return stem.isEmpty() ? name : stem;
    }

    private static String dirName(Path dir) {
        return dir.getFileName() == null ? dir.toString() : dir.getFileName().toString();
    }

    private static String unique(String name, Predicate<String> taken) {
        String candidate = name;
        for (int i = 2; taken.test(candidate); i++) {
            candidate = name + "-" + i;
        }
        return candidate;
    }
}
