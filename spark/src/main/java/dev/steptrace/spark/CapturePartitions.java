package dev.steptrace.spark;

import dev.steptrace.store.ParquetExport;
import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A capture's partition of a dataset table ({@code <table>/capture=<name>/}) as DuckDB on the driver reads it:
 * in place on a local file system, else copied to scratch space first.
 */
final class CapturePartitions {
    private CapturePartitions() {}

    /**
     * The capture's partition of a dataset table ({@code capture=<name>}, named as Spark or DuckDB encodes it)
     * as a local directory: where it is on a local file system, else copied to {@code to}; null when the table
     * has none.
     */
    static java.nio.file.Path local(Configuration conf, Path table, String capture, java.nio.file.Path to)
            throws IOException {
        FileSystem fs = table.getFileSystem(conf);
        if (!fs.exists(table)) {
            return null;
        }
        for (FileStatus st : fs.listStatus(table)) {
            String name = st.getPath().getName();
            if (st.isDirectory() && name.startsWith(ParquetExport.CAPTURE + "=")
                    && ParquetExport.percentDecode(name.substring(ParquetExport.CAPTURE.length() + 1)).equals(capture)) {
                if (fs instanceof LocalFileSystem local) {
                    return local.pathToFile(st.getPath()).toPath();
                }
                Files.createDirectories(to.getParent());
                fs.copyToLocalFile(false, st.getPath(), new Path(to.toUri()), true);
                return to;
            }
        }
        return null;
    }

    /** read_parquet over a capture's partition: its files, with {@code rank} from the directories where it is one. */
    static String read(java.nio.file.Path dir, boolean perRank) {
        return "read_parquet('" + dir.toString().replace("'", "''") + (perRank ? "/*/*.parquet" : "/*.parquet")
                + "', union_by_name = true" + (perRank ? ", hive_partitioning = true, hive_types = {'rank': INTEGER}" : "")
                + ") d";
    }

    /** The columns of a {@link #read}. */
    static Set<String> columns(Connection c, String from) throws SQLException {
        Set<String> out = new HashSet<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("DESCRIBE SELECT * FROM " + from)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
