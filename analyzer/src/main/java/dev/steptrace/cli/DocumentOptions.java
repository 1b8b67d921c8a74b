package dev.steptrace.cli;

import dev.steptrace.common.OutputFiles;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import picocli.CommandLine.Option;

/** Where and how report, diff and decide write their documents. */
public final class DocumentOptions {
    public enum Format { html, md, json }

    @Option(names = "--out", paramLabel = "DIR",
            description = "Output directory (default: under steptrace-out/ in the working directory).")
    Path out;

    @Option(names = "--format", split = ",", paramLabel = "FORMAT",
            description = "Any of html, md, json (default: all three).")
    Set<Format> formats;

    @Option(names = "--templates", paramLabel = "DIR", description = "Freemarker templates overriding the built-in ones.")
    Path templates;

    boolean wants(Format f) {
        return (formats == null || formats.isEmpty() ? EnumSet.allOf(Format.class) : formats).contains(f);
    }

    /**
     * {@code --out} for one document, its subdirectory when a run writes several, else the default. The
     * {@code name} comes from the store (a capture's): whatever it holds, the folder stays under the directory.
     */
    Path dir(String name, int documents) {
        if (out == null) {
            return Path.of(OutputFiles.DEFAULT_DIR, OutputFiles.folderName(name));
        }
        return documents > 1 ? out.resolve(OutputFiles.folderName(name)) : out;
    }

    /** Where the index of several documents goes: beside their folders ({@link #dir} with several). */
    Path indexDir() {
        return out == null ? Path.of(OutputFiles.DEFAULT_DIR) : out;
    }
}
