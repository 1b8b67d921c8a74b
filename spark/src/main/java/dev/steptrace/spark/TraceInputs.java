package dev.steptrace.spark;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * The driver's view of the input: paths and globs on any Hadoop file system (local, HDFS, s3a...), a
 * directory standing for every file under it. Which files are traces is left to the tasks (steptrace's
 * discovery reads their first bytes), as for the CLI.
 */
final class TraceInputs {
    private TraceInputs() {}

    /** Every file the patterns name, in path order, each once. */
    static List<TraceRef> list(Configuration conf, List<String> patterns) throws IOException {
        Map<String, TraceRef> out = new TreeMap<>();
        Map<String, String> dirOfName = new TreeMap<>();
        for (String pattern : patterns) {
            Path p = new Path(pattern);
            FileSystem fs = p.getFileSystem(conf);
            FileStatus[] matches = fs.globStatus(p);
            if (matches == null || matches.length == 0) {
                throw new InputException("no file matches " + pattern);
            }
            for (FileStatus m : matches) {
                if (m.isDirectory()) {
                    RemoteIterator<LocatedFileStatus> files = fs.listFiles(m.getPath(), true);
                    while (files.hasNext()) {
                        add(out, dirOfName, files.next());
                    }
                } else {
                    add(out, dirOfName, m);
                }
            }
        }
        return new ArrayList<>(out.values());
    }

    private static void add(Map<String, TraceRef> out, Map<String, String> dirOfName, FileStatus status) {
        Path file = status.getPath();
        String name = file.getName();
        if (name.startsWith(".") || name.startsWith("_")) {
            // Hadoop's hidden files (_SUCCESS, .crc): never traces.
            return;
        }
        Path dir = file.getParent();
        String capture = dir.getName();
        String other = dirOfName.putIfAbsent(capture, dir.toString());
        if (other != null && !other.equals(dir.toString())) {
            throw new InputException("two capture directories are named " + capture + " (" + other + ", " + dir
                    + "): the dataset names captures by directory; analyse them in separate runs or rename one");
        }
        String uri = file.toString();
        out.putIfAbsent(uri, new TraceRef(uri, capture, status.getLen()));
    }

    /** An input the user can fix: one line, no stack trace. */
    static final class InputException extends RuntimeException {
        InputException(String message) {
            super(message);
        }
    }
}
