package dev.steptrace.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** Text from traces made safe for terminals, and failures of the machine told from steptrace's own. */
class MessagesTest {
    @Test
    void charactersThatDriveATerminalAreWrittenOut() {
        // ESC sequences (colour, cursor), a carriage return that would overwrite the line, a C1 CSI,
        // and a right-to-left override that reorders what follows.
        assertEquals("k\\x1b[31mred\\x1b[0m\\x0dx\\u009b2J\\u202etxt",
                Messages.printable("k\u001b[31mred\u001b[0m\rx\u009b2J\u202etxt"));
        // Tabs and line feeds are text; so is every printable character, accents and CJK included.
        String plain = "void k<\"x\">(int)\tnext\nÜber 核";
        assertEquals(plain, Messages.printable(plain));
    }

    @Test
    void faultsOfTheMachineAreToldApart() {
        assertTrue(Messages.environmentFault(new AccessDeniedException("/x")));
        assertTrue(Messages.environmentFault(new RuntimeException("wrapped",
                new SQLException("IO Error: Could not write file \"s.duckdb.wal\": No space left on device"))));
        assertTrue(Messages.environmentFault(new IOException("File too large")));
        assertFalse(Messages.environmentFault(new IllegalStateException("ingest worker failed")));
        assertFalse(Messages.environmentFault(new SQLException("Binder Error: column x does not exist")));
        assertEquals("permission denied", Messages.io(new AccessDeniedException("/x")));
        assertEquals("Read-only file system", Messages.io(new FileSystemException("/x", null, "Read-only file system")));
    }

    /** The exhausted heap is found behind another thread's failure rethrown wrapped; other memory is not heap. */
    @Test
    void anExhaustedHeapIsFoundBehindTheFailureThatWrapsIt() {
        OutOfMemoryError heap = new OutOfMemoryError("Java heap space");
        assertSame(heap, Messages.heapExhausted(new IllegalStateException("ingest worker failed", heap)));
        assertSame(heap, Messages.heapExhausted(heap));
        assertNull(Messages.heapExhausted(new OutOfMemoryError("unable to create native thread: possibly out of"
                + " memory or process/resource limits reached")));
        assertNull(Messages.heapExhausted(new IllegalStateException("no memory involved")));
    }

    /** Heap sizes as users write them in STEPTRACE_JAVA_OPTS. */
    @Test
    void heapSizesAreWrittenAsTheOptionThatSetsThem() {
        assertEquals("-Xmx512m", Messages.xmx(512L << 20));
        assertEquals("-Xmx4g", Messages.xmx(4L << 30));
        assertEquals("-Xmx1536m", Messages.xmx(1536L << 20));
    }
}
