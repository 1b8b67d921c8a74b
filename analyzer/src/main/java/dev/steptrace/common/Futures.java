package dev.steptrace.common;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/** Work handed to other threads: waiting for its end, and its results. */
public final class Futures {
    private Futures() {}

    /**
     * Waits for the task to end, also when this thread is interrupted meanwhile (its flag is set again after),
     * whatever the task's outcome: for freeing what the task still uses, after a failure reported elsewhere.
     */
    public static void finish(Future<?> task) {
        uninterruptibly(() -> {
            try {
                task.get();
            } catch (ExecutionException | CancellationException e) {
                // its outcome is reported elsewhere
            }
        });
    }

    /** Waits for the thread to end, also when this thread is interrupted meanwhile (its flag is set again after). */
    public static void join(Thread thread) {
        uninterruptibly(thread::join);
    }

    private interface Wait {
        void await() throws InterruptedException;
    }

    private static void uninterruptibly(Wait wait) {
        boolean interrupted = false;
        while (true) {
            try {
                wait.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The task's result; what it threw is thrown here as it was (an IOException, a RuntimeException or an
     * Error), anything else in an IOException.
     *
     * @param doing what the task does, for the message when this thread is interrupted while waiting
     */
    public static <T> T result(Future<T> task, String doing) throws IOException {
        try {
            return task.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("interrupted while " + doing);
            interrupted.initCause(e);
            throw interrupted;
        } catch (ExecutionException e) {
            throw asThrown(e.getCause());
        }
    }

    /**
     * What another thread threw, to throw on this one as it was: a RuntimeException or an Error is thrown
     * from here, an IOException is returned, anything else is returned in an IOException.
     */
    public static IOException asThrown(Throwable failure) {
        if (failure instanceof RuntimeException r) {
            throw r;
        }
        if (failure instanceof Error err) {
            throw err;
        }
        return failure instanceof IOException io ? io : new IOException(failure);
    }
}
