package dev.steptrace.common;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Waiting for work on another thread before freeing what it uses (TableBatch, ParallelScan), and its failures. */
class FuturesTest {
    private final ExecutorService pool = Executors.newSingleThreadExecutor();

    @AfterEach
    void shutDown() {
        pool.shutdownNow();
    }

    /** An interrupt does not cut the wait short: the task has ended when finish returns, and the flag is set again. */
    @Test
    void finishWaitsThroughAnInterrupt() {
        AtomicBoolean ended = new AtomicBoolean();
        Future<?> task = pool.submit(() -> {
            long until = System.nanoTime() + 300_000_000L;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            ended.set(true);
        });
        Thread.currentThread().interrupt();
        Futures.finish(task);
        assertTrue(Thread.interrupted(), "the interrupt is kept for the caller");
        assertTrue(ended.get(), "the task ended before finish returned");
    }

    @Test
    void aFailedTaskIsFinishedToo() {
        Future<?> task = pool.submit(() -> {
            throw new IllegalStateException("failed");
        });
        Futures.finish(task);
        assertTrue(task.isDone());
    }

    /**
     * A helper out of heap (a ParallelScan worker, ReadAhead's thread): the waiting file thread gets the Error
     * as it was, so that its load fails for want of heap and says so.
     */
    @Test
    void runningOutOfHeapIsThrownAsItWas() {
        OutOfMemoryError noHeap = new OutOfMemoryError("Java heap space");
        Future<?> task = pool.submit(() -> {
            throw noHeap;
        });
        assertSame(noHeap, assertThrows(OutOfMemoryError.class, () -> Futures.result(task, "scanning")));
    }
}
