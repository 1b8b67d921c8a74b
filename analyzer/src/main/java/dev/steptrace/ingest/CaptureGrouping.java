package dev.steptrace.ingest;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which trace files of one directory form one capture (one run), from what the traces say
 * (docs/schema.md, "Captures"). Two files are of the same run when they agree on everything that would
 * tell runs apart:
 * <ul>
 *   <li>the same format family ({@link Importer#family}: Kineto, Nsight Systems in any container, ...);</li>
 *   <li>the same world size, when both state one;</li>
 *   <li>different ranks, when both state one (a rank steptrace assumed from file order states none);</li>
 *   <li>the same GPU models, when both name the devices they ran on;</li>
 *   <li>time ranges (first event to last) that overlap, allowing {@link #SAME_RUN_SLACK_NS} between them
 *       for clocks of different hosts: the ranks of one run are profiled over the same steps, while two
 *       runs are separate launches, at least a process start and a model load apart.</li>
 * </ul>
 * A capture is a set of files that all agree pairwise. Files linked by agreement but not all agreeing
 * with each other (two rank-0 files that both overlap one rank-1 file) are ambiguous: each is a capture
 * of its own and a warning says so, never a merged report of runs that may be unrelated. A file without
 * events agrees with none.
 */
public final class CaptureGrouping {
    /** Clock offset tolerated between the hosts of one run (NTP keeps hosts within milliseconds). */
    public static final long SAME_RUN_SLACK_NS = 1_000_000_000L;

    private CaptureGrouping() {}

    /**
     * One stored trace file, as the grouping sees it.
     *
     * @param rank      the rank the trace or its file name states; null when unknown (or assumed from file order)
     * @param worldSize the world size the trace states, or null
     * @param devices   names of the GPUs its operations ran on (empty when the trace does not say)
     * @param firstNs   first event start, or null when the file has no event
     * @param lastNs    last event end, or null
     */
    public record Member(int fileId, Path path, String family, Integer worldSize, Integer rank, Set<String> devices,
                         Long firstNs, Long lastNs) {}

    /**
     * The captures of a directory: groups of members (each sorted by path), ordered by their first event
     * (files without events last, then by path), and one line per ambiguous set of files.
     */
    public record Result(List<List<Member>> groups, List<String> warnings) {}

    /** Whether two files can be ranks of one run (the class comment's rule). */
    public static boolean sameRun(Member a, Member b) {
        if (!a.family().equals(b.family())) {
            return false;
        }
        if (a.worldSize() != null && b.worldSize() != null && !a.worldSize().equals(b.worldSize())) {
            return false;
        }
        if (a.rank() != null && a.rank().equals(b.rank())) {
            return false;
        }
        if (!a.devices().isEmpty() && !b.devices().isEmpty() && !a.devices().equals(b.devices())) {
            return false;
        }
        if (a.firstNs() == null || b.firstNs() == null) {
            return false;
        }
        return a.firstNs() <= b.lastNs() + SAME_RUN_SLACK_NS && b.firstNs() <= a.lastNs() + SAME_RUN_SLACK_NS;
    }

    /** Groups the files of one directory (any order in, the same result out). */
    public static Result group(List<Member> files) {
        List<Member> sorted = new ArrayList<>(files);
        sorted.sort(Comparator.comparing((Member m) -> m.path().toString()));
        int n = sorted.size();
        int[] parent = new int[n];
        for (int i = 0; i < n; i++) {
            parent[i] = i;
        }
        boolean[][] agree = new boolean[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                if (sameRun(sorted.get(i), sorted.get(j))) {
                    agree[i][j] = true;
                    agree[j][i] = true;
                    parent[find(parent, i)] = find(parent, j);
                }
            }
        }
        Map<Integer, List<Integer>> components = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            components.computeIfAbsent(find(parent, i), k -> new ArrayList<>()).add(i);
        }
        List<List<Member>> groups = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (List<Integer> component : components.values()) {
            if (allAgree(component, agree)) {
                groups.add(component.stream().map(sorted::get).toList());
                continue;
            }
            List<Member> members = component.stream().map(sorted::get).toList();
            warnings.add(members.get(0).path().getParent() + ": "
                    + members.stream().map(m -> m.path().getFileName().toString()).collect(Collectors.joining(", "))
                    + " could be ranks of more than one run (same ranks, overlapping times); each is reported"
                    + " as a capture of its own");
            members.forEach(m -> groups.add(List.of(m)));
        }
        groups.sort(Comparator.comparing((List<Member> g) -> start(g), Comparator.nullsLast(Comparator.naturalOrder()))
                .thenComparing(g -> g.get(0).path().toString()));
        return new Result(groups, warnings);
    }

    /** The first event of a group, or null when no member has one. */
    public static Long start(List<Member> group) {
        return group.stream().map(Member::firstNs).filter(t -> t != null).min(Long::compare).orElse(null);
    }

    private static boolean allAgree(List<Integer> component, boolean[][] agree) {
        for (int i = 0; i < component.size(); i++) {
            for (int j = i + 1; j < component.size(); j++) {
                if (!agree[component.get(i)][component.get(j)]) {
                    return false;
                }
            }
        }
        return true;
    }

    private static int find(int[] parent, int i) {
        while (parent[i] != i) {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        return i;
    }
}
