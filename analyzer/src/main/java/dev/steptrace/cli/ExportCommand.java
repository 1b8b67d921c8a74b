package dev.steptrace.cli;

import dev.steptrace.common.InputException;
import dev.steptrace.api.CaptureInfo;
import dev.steptrace.api.Steptrace;
import dev.steptrace.ingest.IngestOptions;
import dev.steptrace.store.ParquetExport;
import dev.steptrace.store.Store;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "export", mixinStandardHelpOptions = true,
        description = {"Write the store's tables as a Hive-partitioned Parquet dataset, for Spark, Trino, DuckDB or pandas.",
                "The tables (events, files, analysis) of one capture, or of all, go to "
                        + "DIR/<table>/capture=<name>/rank=<rank>/*.parquet (a capture's tables without ranks stop at "
                        + "capture=<name>, the store's own at <table>). The captures' earlier partitions in DIR are "
                        + "replaced, others' kept. Layout and example queries: docs/export.md."})
public final class ExportCommand implements Callable<Integer> {
    static final class Which {
        @Parameters(index = "0", paramLabel = "CAPTURE",
                description = "A capture directory (ingested when needed), or a capture in the store (path or name).")
        String capture;

        @Option(names = "--all", description = "Every capture in the store.")
        boolean all;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Which which;

    @Option(names = "--parquet", paramLabel = "DIR", required = true, description = "The dataset's directory.")
    Path parquet;

    @Mixin
    CommonOptions common;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        Path db = Store.resolve(common.db);
        try (Steptrace st = which.all ? Steptrace.open(db) : Steptrace.openOrCreate(db)) {
            List<Integer> ids = which.all ? st.captureList().stream().map(CaptureInfo::id).toList()
                    : List.of(st.resolve(which.capture, IngestOptions.defaults(),
                            IngestCommand.listener(common.quiet, err)).id());
            if (ids.isEmpty()) {
                throw new InputException("the store " + db + " holds no capture to export");
            }
            List<ParquetExport.Written> written = ParquetExport.write(st.connection(), ids, parquet.toAbsolutePath());
            PrintWriter out = spec.commandLine().getOut();
            out.println(parquet.toAbsolutePath());
            out.flush();
            if (!common.quiet) {
                err.println("steptrace: exported " + ids.size() + (ids.size() == 1 ? " capture: " : " captures: ")
                        + String.join(", ", written.stream().filter(w -> w.rows() > 0)
                                .map(w -> String.format("%s %,d", w.table(), w.rows())).toList()) + " rows");
                err.flush();
            }
        }
        return Main.OK;
    }
}
