package dev.steptrace.testsupport;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/** Whether a program of the machine can be used: tests that need one skip (or fail on CI) without it. */
public final class Programs {
    private Programs() {}

    /** Runs {@code cmd}, its output discarded: true when it exits 0 within 30 s. */
    public static boolean works(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
