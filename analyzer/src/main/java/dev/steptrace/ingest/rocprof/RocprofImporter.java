package dev.steptrace.ingest.rocprof;

import dev.steptrace.ingest.FileHead;
import dev.steptrace.ingest.FileSummary;
import dev.steptrace.ingest.ImportJob;
import dev.steptrace.ingest.Importer;
import dev.steptrace.ingest.Recognition;
import dev.steptrace.ingest.RowSink;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteOpenMode;

/**
 * rocprofv3 (ROCm's profiler) kernel traces: {@code rocprofv3 --kernel-trace --output-format csv}
 * writes {@code <prefix>kernel_trace.csv}, and, with {@code --memory-copy-trace} and
 * {@code --hip-trace}, {@code <prefix>memory_copy_trace.csv} and {@code <prefix>hip_api_trace.csv}
 * beside it. The kernel trace is the trace; the other two, when present with the same prefix, are
 * read with it (one process: one {@code files} row). Files are recognised by their CSV header, not
 * their name. A rocpd SQLite database (rocprofv3's default output since ROCm 7.0) is recognised and
 * refused with the command that converts it. docs/formats.md has the mapping.
 */
public final class RocprofImporter implements Importer {
    public static final String FORMAT = "rocprofv3-csv";
    static final String KERNEL_TRACE = "kernel_trace.csv";
    static final String MEMORY_COPY_TRACE = "memory_copy_trace.csv";
    static final String HIP_API_TRACE = "hip_api_trace.csv";
    private static final byte[] SQLITE_MAGIC = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);

    @Override
    public String family() {
        return "rocprofv3";
    }

    @Override
    public List<String> formats() {
        return List.of(FORMAT);
    }

    @Override
    public Recognition recognize(FileHead file) throws IOException {
        if (file.startsWith(SQLITE_MAGIC)) {
            return isRocpd(file.path()) ? Recognition.refuse("a rocpd database (rocprofv3's default output): not read;"
                    + " convert it with 'rocpd convert -i " + file.fileName() + " --output-format csv' (or record with"
                    + " 'rocprofv3 --kernel-trace --output-format csv') and give steptrace the *" + KERNEL_TRACE) : null;
        }
        String first = file.firstLine();
        List<String> header = first == null ? null : CsvRows.header(first);
        if (header == null) {
            return null;
        }
        if (header.containsAll(List.of("Kernel_Name", "Start_Timestamp", "End_Timestamp", "Agent_Id"))) {
            String twice = CsvRows.repeated(header);
            return twice == null ? Recognition.claim(FORMAT) : Recognition.refuse("rocprofv3 kernel trace: " + CsvRows.ambiguous(twice));
        }
        if (header.containsAll(List.of("Direction", "Start_Timestamp", "End_Timestamp"))) {
            return Recognition.refuse(partOf(file.path(), MEMORY_COPY_TRACE, "memory copy trace"));
        }
        if (header.containsAll(List.of("Domain", "Function", "Correlation_Id", "Start_Timestamp", "End_Timestamp"))) {
            String name = file.fileName();
            return Recognition.refuse(name.endsWith(HIP_API_TRACE) ? partOf(file.path(), HIP_API_TRACE, "HIP API trace")
                    : "rocprofv3 API trace (" + name + "): only *" + HIP_API_TRACE + " is read, with its *" + KERNEL_TRACE);
        }
        if (header.contains("Correlation_Id") || header.contains("Kernel_Name") || header.contains("Dispatch_Id")) {
            return Recognition.refuse("rocprofv3 CSV that is not a kernel trace: not read (steptrace reads *"
                    + KERNEL_TRACE + ", with the *" + MEMORY_COPY_TRACE + " and *" + HIP_API_TRACE + " beside it)");
        }
        return null;
    }

    /** The kernel trace, then the memory copy and HIP API traces of the same prefix that exist. */
    @Override
    public List<Path> parts(Path trace) {
        List<Path> parts = new ArrayList<>(List.of(trace));
        for (String kind : List.of(MEMORY_COPY_TRACE, HIP_API_TRACE)) {
            Path sibling = sibling(trace, KERNEL_TRACE, kind);
            if (sibling != null && Files.isRegularFile(sibling)) {
                parts.add(sibling);
            }
        }
        return parts;
    }

    @Override
    public FileSummary read(ImportJob job) throws IOException, SQLException {
        List<Path> parts = parts(job.file().path());
        try (RowSink sink = job.sink(RocprofReader.BATCH_ROWS, null)) {
            FileSummary s = new RocprofReader(sink, job.eventsRead()).read(parts);
            job.fileBytesRead().addAndGet(job.size());
            job.jsonBytesRead().addAndGet(job.size());
            return s;
        }
    }

    /** Why a trace that goes with a kernel trace is not a trace of its own. */
    private static String partOf(Path file, String suffix, String what) {
        Path kernels = sibling(file, suffix, KERNEL_TRACE);
        if (kernels != null && Files.isRegularFile(kernels)) {
            return "rocprofv3 " + what + ": read with " + kernels.getFileName();
        }
        return "rocprofv3 " + what + " without its *" + KERNEL_TRACE + " beside it: not read";
    }

    /** The file of the same prefix with {@code toSuffix} instead of {@code fromSuffix}, or null when the name does not end so. */
    private static Path sibling(Path file, String fromSuffix, String toSuffix) {
        String name = file.getFileName().toString();
        if (!name.endsWith(fromSuffix)) {
            return null;
        }
        return file.resolveSibling(name.substring(0, name.length() - fromSuffix.length()) + toSuffix);
    }

    /** Whether an SQLite database holds rocpd's tables ({@code rocpd_*}). */
    private static boolean isRocpd(Path file) throws IOException {
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(true);
        config.setOpenMode(SQLiteOpenMode.OPEN_URI);
        try (Connection c = config.createConnection("jdbc:sqlite:" + file.toAbsolutePath().toUri() + "?immutable=1");
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(
                     "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name LIKE 'rocpd\\_%' ESCAPE '\\' LIMIT 1")) {
            return rs.next();
        } catch (SQLException e) {
            throw new IOException("not a readable SQLite database: " + e.getMessage(), e);
        }
    }
}
