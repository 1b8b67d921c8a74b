package dev.steptrace.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;

/** The version Maven wrote into the jar. */
public final class Version implements CommandLine.IVersionProvider {
    public static String current() {
        Properties p = new Properties();
        try (InputStream in = Version.class.getResourceAsStream("/steptrace-version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            return "unknown";
        }
        return p.getProperty("version", "unknown");
    }

    @Override
    public String[] getVersion() {
        return new String[] {"steptrace " + current()};
    }
}
