package dev.steptrace.cli;

import dev.steptrace.analysis.CaptureAnalysis;
import dev.steptrace.analysis.CaptureScope;
import dev.steptrace.analysis.DiffBuilder;
import dev.steptrace.classify.Taxonomy;
import dev.steptrace.report.CaptureDiff;
import dev.steptrace.report.DiffWriters;
import dev.steptrace.store.Store;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "diff", mixinStandardHelpOptions = true,
        description = {"Compare two captures (A the baseline, B the candidate) phase by phase:",
                "time per step by kernel category with 95%% bootstrap intervals, a verdict,",
                "the kernels that moved, collectives, and warnings where the captures differ",
                "in structure. A and B are trace directories (ingested when needed) or",
                "captures already in the store (by path or name). Method: docs/diff.md."})
public final class DiffCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "A", description = "The baseline: a capture directory, or a capture in the store.")
    String a;

    @Parameters(index = "1", paramLabel = "B", description = "The capture to compare with A.")
    String b;

    @Option(names = "--out", paramLabel = "DIR",
            description = "Output directory (default: steptrace-out/<A name>-vs-<B name>/ in the working directory).")
    Path out;

    @Option(names = "--format", split = ",", paramLabel = "FORMAT",
            description = "Any of html, md, json (default: all three).")
    Set<ReportCommand.Format> formats;

    @Option(names = "--taxonomy", paramLabel = "FILE", description = "Kernel rules to try before the built-in ones.")
    Path taxonomyFile;

    @Option(names = "--templates", paramLabel = "DIR", description = "Freemarker templates overriding the built-in ones.")
    Path templates;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "" + DiffBuilder.DEFAULT_SEED,
            description = "Seed of the bootstrap resampling (default: ${DEFAULT-VALUE}); same inputs and seed, same output.")
    long seed;

    @Mixin
    CommonOptions common;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Set<ReportCommand.Format> wanted = formats == null || formats.isEmpty()
                ? EnumSet.allOf(ReportCommand.Format.class) : formats;
        Taxonomy taxonomy = Taxonomies.load(taxonomyFile);
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (Store store = Store.open(Store.resolve(common.db))) {
            int captureA = resolve(store, a, "A", err);
            int captureB = resolve(store, b, "B", err);
            try (CaptureAnalysis analysisA = CaptureAnalysis.run(store, captureA, taxonomy, null);
                 CaptureAnalysis analysisB = CaptureAnalysis.run(store, captureB, taxonomy, null)) {
                CaptureDiff diff = new DiffBuilder(analysisA, analysisB, seed).build(Version.current());
                Path dir = out != null ? out
                        : Path.of("steptrace-out", analysisA.scope().name() + "-vs-" + analysisB.scope().name());
                Files.createDirectories(dir);
                List<Path> written = DiffWriters.writeAll(diff, dir, templates, wanted.contains(ReportCommand.Format.json),
                        wanted.contains(ReportCommand.Format.html), wanted.contains(ReportCommand.Format.md));
                for (Path p : written) {
                    stdout.println(p);
                }
            }
        }
        stdout.flush();
        return Main.OK;
    }

    /**
     * A path on disk is ingested (a no-op when unchanged) and must hold one capture; anything else is
     * looked up in the store, by capture path, then by capture name.
     */
    private int resolve(Store store, String arg, String which, PrintWriter err) throws Exception {
        Path path = Path.of(arg);
        if (Files.exists(path)) {
            List<Integer> captures = ReportCommand.ingestAndFind(store, path, common.quiet, err);
            if (captures.size() > 1) {
                throw new UserError(which + ": " + arg + " holds " + captures.size() + " captures ("
                        + names(store, captures) + "); name one of them");
            }
            return captures.get(0);
        }
        List<Integer> ids = new ArrayList<>();
        try (PreparedStatement ps = store.connection().prepareStatement("""
                SELECT capture_id FROM captures WHERE capture_id IN (SELECT capture_id FROM files)
                AND (path = ? OR (name = ? AND NOT EXISTS (SELECT 1 FROM captures c2 WHERE c2.path = ?)))
                ORDER BY path
                """)) {
            String abs = path.toAbsolutePath().normalize().toString();
            ps.setString(1, abs);
            ps.setString(2, arg);
            ps.setString(3, abs);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getInt(1));
                }
            }
        }
        if (ids.isEmpty()) {
            throw new UserError(which + ": " + arg + " is neither a trace directory nor a capture in the store"
                    + " (by path or name)");
        }
        if (ids.size() > 1) {
            throw new UserError(which + ": " + ids.size() + " captures in the store are named " + arg
                    + " (" + paths(store, ids) + "); give the path instead");
        }
        return ids.get(0);
    }

    private static String names(Store store, List<Integer> ids) throws Exception {
        List<String> out = new ArrayList<>();
        for (int id : ids) {
            out.add(CaptureScope.load(store.connection(), id).name());
        }
        return String.join(", ", out);
    }

    private static String paths(Store store, List<Integer> ids) throws Exception {
        List<String> out = new ArrayList<>();
        for (int id : ids) {
            out.add(CaptureScope.load(store.connection(), id).path().toString());
        }
        return String.join(", ", out);
    }
}
