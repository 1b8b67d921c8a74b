package dev.steptrace.cli;

import dev.steptrace.api.Steptrace;
import picocli.CommandLine;

/** The version Maven wrote into the jar. */
public final class Version implements CommandLine.IVersionProvider {
    public static String current() {
        return Steptrace.version();
    }

    @Override
    public String[] getVersion() {
        return new String[] {"steptrace " + current()};
    }
}
