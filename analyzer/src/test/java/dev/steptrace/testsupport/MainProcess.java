package dev.steptrace.testsupport;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * steptrace's {@code Main} in a JVM of its own, for what one process cannot show of another: a small heap, a
 * command run under {@code setpriv} or in a mount namespace of its own.
 */
public final class MainProcess {
    private MainProcess() {}

    /** The command line of a JVM with these options that runs {@code steptrace ARGS} from the test class path. */
    public static List<String> command(List<String> jvmOptions, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("dev.steptrace.cli.Main");
        cmd.addAll(args);
        return cmd;
    }

    /** Runs {@code cmd} (a {@link #command}, or one that ends with it) to its end, at most ten minutes. */
    public static Cli.Result run(List<String> cmd) throws Exception {
        return run(cmd, Map.of());
    }

    /** Runs {@code cmd} as {@link #run(List)} does, with these environment variables set beside this JVM's. */
    public static Cli.Result run(List<String> cmd, Map<String, String> environment) throws Exception {
        Path out = Files.createTempFile("steptrace-stdout", ".txt");
        Path err = Files.createTempFile("steptrace-stderr", ".txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(environment);
        Process p = pb.start();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            fail("timed out: " + cmd);
        }
        try {
            return new Cli.Result(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.delete(out);
            Files.delete(err);
        }
    }
}
