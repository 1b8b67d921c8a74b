package dev.steptrace.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TableBatch: every row lands once as set, while a buffer grows and across buffer swaps on an inserter
 * thread, and failures surface.
 */
class TableBatchInserterTest {
    @TempDir
    Path tmp;

    private ExecutorService inserter;

    @BeforeEach
    void start() {
        inserter = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void stop() {
        inserter.shutdownNow();
    }

    @Test
    void rowsOfManyBatchesAllLandAndFlushWaitsForThem() throws Exception {
        try (Store store = Store.open(tmp.resolve("s.duckdb")); Connection c = store.newConnection()) {
            c.setAutoCommit(false);
            int rows = 10 * 1000 + 7;
            try (TableBatch b = TableBatch.forTable(c, store.allocator(), "names", 1000, inserter)) {
                int file = b.column("file_id");
                int id = b.column("name_id");
                int name = b.column("name");
                for (int i = 0; i < rows; i++) {
                    b.setInt(file, 1);
                    b.setInt(id, i);
                    b.setString(name, "n" + i);
                    b.endRow();
                }
                b.flush();
                assertEquals(rows, b.rowsWritten());
            }
            c.commit();
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*), count(DISTINCT name_id), sum(name_id),"
                         + " bool_and(name = 'n' || name_id) FROM names")) {
                rs.next();
                assertEquals(rows, rs.getLong(1));
                assertEquals(rows, rs.getLong(2));
                assertEquals((long) rows * (rows - 1) / 2, rs.getLong(3));
                assertTrue(rs.getBoolean(4), "every row's values stayed together across buffer swaps");
            }
        }
    }

    /**
     * An insert done before the hand-off returns to the caller (the caller's thread descheduled right after it, on a
     * loaded machine): every row is still counted once, not the emptied buffer's none.
     */
    @Test
    void rowsWrittenCountsABatchWhoseInsertEndedBeforeItsHandOffReturned() throws Exception {
        ExecutorService done = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>()) {
            @Override
            public <T> Future<T> submit(Callable<T> insert) {
                Future<T> f = super.submit(insert);
                try {
                    f.get();
                } catch (InterruptedException | ExecutionException e) {
                    throw new AssertionError(e);
                }
                return f;
            }
        };
        try (Store store = Store.open(tmp.resolve("s.duckdb")); Connection c = store.newConnection()) {
            c.setAutoCommit(false);
            int rows = 3 * 10 + 7;
            try (TableBatch b = TableBatch.forTable(c, store.allocator(), "names", 10, done)) {
                for (int i = 0; i < rows; i++) {
                    b.setInt(b.column("file_id"), 1);
                    b.setInt(b.column("name_id"), i);
                    b.setString(b.column("name"), "n" + i);
                    b.endRow();
                }
                b.flush();
                assertEquals(rows, b.rowsWritten());
            }
            c.commit();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM names")) {
                rs.next();
                assertEquals(rows, rs.getLong(1));
            }
        } finally {
            done.shutdownNow();
        }
    }

    @Test
    void aBatchGrowingAndRefilledKeepsEveryValueAndNull() throws Exception {
        // The buffer doubles once, is inserted at 2 Ki rows and filled again (its NULL bits cleared).
        int rows = 3 * TableBatch.FIRST_ROWS + 5;
        try (Store store = Store.open(tmp.resolve("s.duckdb")); Connection c = store.newConnection()) {
            c.setAutoCommit(false);
            try (TableBatch b = TableBatch.forTable(c, store.allocator(), "tracks", 2 * TableBatch.FIRST_ROWS)) {
                for (int i = 0; i < rows; i++) {
                    b.setInt(b.column("file_id"), 1);
                    b.setLong(b.column("pid"), i);
                    // tid on every third row only: the refill's rows set other slots than the first fill's
                    // (2048 is not a multiple of 3), so a NULL bit left from the first would show
                    b.setLongIf(i % 3 == 0, b.column("tid"), 10L * i);
                    b.setString(b.column("name"), "t" + i);
                    b.endRow();
                }
                b.flush();
            }
            c.commit();
            long thirds = (rows + 2) / 3;
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*), count(tid), sum(tid), bool_and(name = 't' || pid),"
                         + " bool_and(tid IS NULL OR tid = 10 * pid) FROM tracks")) {
                rs.next();
                assertEquals(rows, rs.getLong(1));
                assertEquals(thirds, rs.getLong(2));
                // 10 * (0 + 3 + 6 + ... + 3 * (thirds - 1))
                assertEquals(10L * 3 * thirds * (thirds - 1) / 2, rs.getLong(3));
                assertTrue(rs.getBoolean(4));
                assertTrue(rs.getBoolean(5));
            }
        }
    }

    @Test
    void anInsertFailureOnTheInserterIsReportedByFlush() throws Exception {
        try (Store store = Store.open(tmp.resolve("s.duckdb")); Connection c = store.newConnection()) {
            c.setAutoCommit(false);
            try (TableBatch b = TableBatch.forTable(c, store.allocator(), "names", 10, inserter)) {
                int file = b.column("file_id");
                for (int i = 0; i < 25; i++) {
                    b.setInt(file, 1);
                    // name_id and name are NOT NULL: every insert fails.
                    try {
                        b.endRow();
                    } catch (SQLException e) {
                        // the second full buffer waits for the first, whose failure may surface here
                    }
                }
                assertThrows(SQLException.class, b::flush);
            }
            c.rollback();
        }
    }

    /**
     * The insert thread out of heap: the Error reaches the file's thread as it was (its load fails for want of
     * heap and says so), not as a store error.
     */
    @Test
    void runningOutOfHeapOnTheInserterIsPassedOnAsItWas() throws Exception {
        OutOfMemoryError noHeap = new OutOfMemoryError("Java heap space");
        assertSame(noHeap, assertThrows(OutOfMemoryError.class, () -> flushFailingWith(noHeap)));
    }

    /**
     * Any other Error of the insert is the store's failure to write (Arrow's native library refused, say), reported
     * as one: the file fails with a store error, not the whole ingest with an internal one.
     */
    @Test
    void anotherErrorOnTheInserterIsAStoreError() {
        UnsatisfiedLinkError noLibrary = new UnsatisfiedLinkError("failed to map segment from shared object");
        SQLException e = assertThrows(SQLException.class, () -> flushFailingWith(noLibrary));
        assertSame(noLibrary, e.getCause());
    }

    /** Fills a batch of one row and flushes it on an inserter whose inserts throw {@code error}. */
    private void flushFailingWith(Error error) throws Exception {
        ExecutorService failing = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>()) {
            @Override
            protected <T> RunnableFuture<T> newTaskFor(Callable<T> insert) {
                return new FutureTask<>(() -> {
                    throw error;
                });
            }
        };
        try (Store store = Store.open(tmp.resolve("s.duckdb")); Connection c = store.newConnection()) {
            c.setAutoCommit(false);
            try (TableBatch b = TableBatch.forTable(c, store.allocator(), "names", 10, failing)) {
                b.setInt(b.column("file_id"), 1);
                b.setInt(b.column("name_id"), 0);
                b.setString(b.column("name"), "n0");
                b.endRow();
                b.flush();
            } finally {
                c.rollback();
            }
        } finally {
            failing.shutdownNow();
        }
    }
}
