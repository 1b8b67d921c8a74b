package dev.steptrace.ingest.kineto;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.common.Futures;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The event list of one file scanned on several threads, when cores are free: the reader's thread cuts
 * the list ahead of itself into chunks, each ending just after the comma between two events; worker
 * {@code w} of {@code n} scans chunks {@code w, w + n, w + 2n...} with an {@link EventScanner} and a
 * name dictionary of its own; the reader's thread hands their events on in file order, each name id
 * mapped onto the file's dictionary (a chunk's new names first, in the order they appear in it, so
 * every name gets the id a single scanner would give it).
 *
 * <p>A cut is a guess ({@code "}, {"} may be inside a string or an {@code args} value): the chunk before
 * it must end exactly there, after a whole event and the comma, or its scanner stops short at the entry
 * it could not finish, as at damage. Wherever a chunk's scanner stops short, the scan stops there and
 * later chunks are dropped, so damage, a false cut and the shapes left to Jackson all end the scan
 * where a single scanner would have stopped for them (or, for a false cut, before an entry it reads
 * the same as Jackson): the bytes cut ahead from there on go back to {@link RecordingInput}, and Jackson
 * reads on from them, as after any stop. Damage of the input itself (a broken gzip) met while cutting
 * ahead is thrown where a single scanner would have met it. About {@link #AHEAD_BYTES} are cut ahead,
 * and a chunk holds at most one event per 64 of its bytes (a worker's scan ends there, as at a stop), so
 * memory stays bounded; the hand-offs cost about a fifth more CPU than one scanner
 * (docs/performance.md, "Why the code is as it is").
 *
 * <p>Every stop short of the list's end drops the chunks cut ahead of it, scanned for nothing, and the
 * reader waits for them: a list whose entries go to Jackson often (NaN, the unescaped quotes Kineto
 * writes, runs of tiny entries) would spend nearly all its time so. {@link #worthScanningFrom} therefore
 * allows, past the first stop, one stop per {@link #PROGRESS_PER_STOP} times the bytes cut ahead of the
 * reader's progress; otherwise the single scanner reads on until the input has gone far enough, and hands
 * back there.
 */
final class ParallelScan implements AutoCloseable {
    /** Worker threads' names start with this. */
    static final String THREAD = "steptrace-scan";
    static final int CHUNK_BYTES = 1 << 20;
    /**
     * Bytes cut ahead of the reader: at most this, or two chunks a worker if that is more (and more while a
     * chunk grows to hold a large event).
     */
    private static final int AHEAD_BYTES = 8 << 20;
    /** Bytes of a chunk per event it may hold: past that many events its worker's scan ends, as at a stop. */
    private static final int BYTES_PER_EVENT_HELD = 64;
    /** Progress, in bytes cut ahead, that each stop after the first must be preceded by ({@link #worthScanningFrom}). */
    private static final int PROGRESS_PER_STOP = 8;
    /** A worker's dictionary is started afresh past this many characters, so n workers keep at most n times it. */
    private static final long MAX_WORKER_NAME_CHARS = 1L << 20;

    private final RecordingInput in;
    private final NameDictionary names;
    private final ReadResult result;
    private final int chunkBytes;
    private final Worker[] workers;
    private final int maxAhead;
    private final int maxEvents;
    private final ArrayDeque<Chunk> free = new ArrayDeque<>();
    /** Scans so far (each ends at a stop, the list's end included), and the bytes their workers were given. */
    private int scans;
    private long bytesScanned;
    private long stoppedAt;
    private boolean stoppedAfterValue;
    private RecordingInput.DamagedInputException damage;

    /**
     * @param in         the file's input, which the scan reads ahead and the reader seeks back in
     * @param names      the file's dictionary, for the ids the reader hands on
     * @param result     the read's result, which gets the anomalies the workers' scanners count
     * @param threads    the workers
     * @param chunkBytes bytes per chunk ({@link #CHUNK_BYTES}; tests cut smaller)
     */
    ParallelScan(RecordingInput in, NameDictionary names, ReadResult result, boolean keepPythonFunctions,
                 JsonFactory factory, ObjectMapper mapper, int threads, int chunkBytes) {
        this.in = in;
        this.names = names;
        this.result = result;
        this.chunkBytes = chunkBytes;
        this.workers = new Worker[threads];
        for (int w = 0; w < threads; w++) {
            workers[w] = new Worker(keepPythonFunctions, factory, mapper, THREAD + " " + (w + 1));
        }
        this.maxAhead = Math.max(2 * threads, Math.min(4 * threads, AHEAD_BYTES / chunkBytes));
        this.maxEvents = Math.max(1, chunkBytes / BYTES_PER_EVENT_HELD);
    }

    /**
     * The absolute offset from which the list is worth scanning here rather than by a single scanner: anywhere
     * before the second stop, then only where the stops past the first came no more often than one per
     * {@link #PROGRESS_PER_STOP} times the bytes cut ahead (see the class comment).
     */
    long worthScanningFrom() {
        return (long) (scans - 1) * PROGRESS_PER_STOP * maxAhead * chunkBytes;
    }

    /** Bytes handed to the workers so far, those of chunks dropped after a stop included. */
    long bytesScanned() {
        return bytesScanned;
    }

    long stoppedAt() {
        return stoppedAt;
    }

    boolean stoppedAfterValue() {
        return stoppedAfterValue;
    }

    /**
     * As {@link EventScanner#scan}: reads list entries from absolute offset {@code at} ({@code afterValue}
     * when an entry ends just before it), handing each to {@code events} in file order, until the list's
     * closing bracket or anything Jackson must read: {@link #stoppedAt()} says where.
     */
    void scan(long at, boolean afterValue, EventScanner.Events events) throws IOException {
        scans++;
        damage = null;
        in.seek(at);
        ArrayDeque<Chunk> ahead = new ArrayDeque<>();
        Cutter cutter = new Cutter(at, afterValue);
        Chunk stopped = null;
        int sequence = 0;
        try {
            while (ahead.size() < maxAhead && cutter.more()) {
                ahead.add(submit(cutter.cut(take()), sequence++));
            }
            while (true) {
                Chunk c = ahead.poll();
                await(c);
                if (c.uncut) {
                    // An entry larger than a single scanner reads itself: Jackson reads it, as it would.
                    stop(c.start, c.afterValue);
                    stopped = c;
                    return;
                }
                handOn(c, events);
                if (c.failure instanceof IOException io) {
                    throw io;
                }
                if (c.failure instanceof RuntimeException r) {
                    throw r;
                }
                if (c.last || c.stoppedAt != c.start + c.length || c.stoppedAfterValue) {
                    stop(c.stoppedAt, c.stoppedAfterValue);
                    stopped = c;
                    if (c.last && c.ranOut && cutter.damage != null) {
                        // A single scanner runs out of bytes here too, and asks the input for more: its damage.
                        damage = cutter.damage;
                    }
                    return;
                }
                if (cutter.more()) {
                    ahead.add(submit(cutter.cut(take()), sequence++));
                }
                free.add(c);
            }
        } finally {
            // Chunks after a stop are not handed on; their workers finish them before the next scan.
            for (Chunk c : ahead) {
                awaitQuietly(c);
                // Its names were not handed on: the worker starts its names afresh, so ids stay in file order.
                c.worker.restartNames = true;
            }
            if (stopped != null) {
                giveBack(stopped, ahead, cutter);
                free.add(stopped);
            }
            free.addAll(ahead);
        }
    }

    /**
     * After {@link #scan} returned: the input's damage that a single scanner would have met where this one
     * stopped (it throws it then), or null.
     */
    RecordingInput.DamagedInputException damage() {
        return damage;
    }

    /** The bytes cut ahead from where the scan stopped on, back to the input, where the reader goes on. */
    private void giveBack(Chunk stopped, ArrayDeque<Chunk> ahead, Cutter cutter) {
        int from = (int) (stoppedAt - stopped.start);
        long length = stopped.length - from + cutter.tailLength;
        for (Chunk c : ahead) {
            length += c.length;
        }
        byte[] bytes = new byte[(int) length];
        System.arraycopy(stopped.bytes, from, bytes, 0, stopped.length - from);
        int n = stopped.length - from;
        for (Chunk c : ahead) {
            System.arraycopy(c.bytes, 0, bytes, n, c.length);
            n += c.length;
        }
        if (cutter.tailLength > 0) {
            System.arraycopy(cutter.tail, cutter.tailFrom, bytes, n, cutter.tailLength);
        }
        in.giveBack(stoppedAt, bytes, n + cutter.tailLength);
    }

    private void stop(long at, boolean afterValue) {
        stoppedAt = at;
        stoppedAfterValue = afterValue;
    }

    private Chunk take() {
        Chunk c = free.poll();
        if (c == null) {
            return new Chunk(chunkBytes);
        }
        if (c.bytes.length != chunkBytes) {
            c.bytes = new byte[chunkBytes];
        }
        return c;
    }

    private Chunk submit(Chunk c, int sequence) {
        Worker w = workers[sequence % workers.length];
        c.worker = w;
        c.done = c.uncut ? null : w.thread.submit(() -> w.scan(c, maxEvents));
        if (!c.uncut) {
            bytesScanned += c.length;
        }
        return c;
    }

    /** Maps the chunk's name ids onto the file's dictionary and hands its events on; counts its anomalies. */
    private void handOn(Chunk c, EventScanner.Events events) {
        Worker w = c.worker;
        if (c.freshNames) {
            Arrays.fill(w.fileIds, -1);
        }
        for (int i = 0; i < c.newNames.length; i++) {
            int local = c.firstNewName + i;
            if (local >= w.fileIds.length) {
                int old = w.fileIds.length;
                w.fileIds = Arrays.copyOf(w.fileIds, Math.max(2 * old, local + 1));
                Arrays.fill(w.fileIds, old, w.fileIds.length, -1);
            }
            w.fileIds[local] = names.idOf(c.newNames[i]);
        }
        for (int i = 0; i < c.count; i++) {
            TraceEvent e = c.events[i];
            if (e.nameId >= 0) {
                e.nameId = w.fileIds[e.nameId];
            }
            events.event(e);
        }
        for (Map.Entry<String, Long> a : c.anomalies.entrySet()) {
            result.anomalies(a.getKey(), a.getValue());
        }
    }

    private static void await(Chunk c) throws IOException {
        if (c.done == null) {
            return;
        }
        try {
            Futures.result(c.done, "scanning");
        } finally {
            c.done = null;
        }
    }

    /**
     * Waits for a chunk after the stop, also when interrupted, so that it is not reused while its worker still
     * scans it; what its scanner met is met again by the reader, or not at all.
     */
    private static void awaitQuietly(Chunk c) {
        if (c.done != null) {
            Futures.finish(c.done);
            c.done = null;
        }
    }

    @Override
    public void close() {
        for (Worker w : workers) {
            w.thread.shutdownNow();
        }
    }

    /**
     * Cuts the input into chunks, in order: each ends just after a comma that has a closing brace before
     * it and an opening brace after it (white space aside), or at the end of the input.
     */
    private final class Cutter {
        private long next;
        private boolean afterValue;
        private boolean ended;
        private RecordingInput.DamagedInputException damage;
        /** Bytes read past the last cut, in the previous chunk's array: they start the next chunk. */
        private byte[] tail;
        private int tailFrom;
        private int tailLength;

        Cutter(long at, boolean afterValue) {
            this.next = at;
            this.afterValue = afterValue;
        }

        boolean more() {
            return !ended;
        }

        Chunk cut(Chunk c) throws IOException {
            c.start = next;
            c.afterValue = afterValue;
            c.uncut = false;
            c.last = false;
            int n = 0;
            if (tailLength > 0) {
                if (tailLength >= c.bytes.length) {
                    c.bytes = new byte[2 * tailLength];
                }
                System.arraycopy(tail, tailFrom, c.bytes, 0, tailLength);
                n = tailLength;
                tailLength = 0;
            }
            while (true) {
                try {
                    while (n < c.bytes.length) {
                        int r = in.readPast(c.bytes, n, c.bytes.length - n);
                        if (r < 0) {
                            break;
                        }
                        n += r;
                    }
                } catch (RecordingInput.DamagedInputException e) {
                    // Read ahead of the events: the reader meets it where a single scanner would (see damage()).
                    damage = e;
                }
                if (n < c.bytes.length) {
                    c.length = n;
                    c.last = true;
                    ended = true;
                    return c;
                }
                int end = lastCut(c.bytes, n);
                if (end >= 0) {
                    c.length = end;
                    break;
                }
                if (c.bytes.length >= EventScanner.MAX_EVENT) {
                    c.length = n;
                    c.uncut = true;
                    ended = true;
                    return c;
                }
                c.bytes = Arrays.copyOf(c.bytes, 2 * c.bytes.length);
            }
            tail = c.bytes;
            tailFrom = c.length;
            tailLength = n - c.length;
            next = c.start + c.length;
            afterValue = false;
            return c;
        }

        /** The offset just after the last comma between "}" and "{" in {@code b[0, n)}, or -1. */
        private int lastCut(byte[] b, int n) {
            for (int i = n - 1; i > 0; i--) {
                if (b[i] != '{') {
                    continue;
                }
                int comma = before(b, i);
                if (comma > 0 && b[comma] == ',') {
                    int brace = before(b, comma);
                    if (brace >= 0 && b[brace] == '}') {
                        return comma + 1;
                    }
                }
            }
            return -1;
        }

        /** The index of the last byte before {@code i} that is not white space, or -1. */
        private int before(byte[] b, int i) {
            int j = i - 1;
            while (j >= 0 && (b[j] == ' ' || b[j] == '\n' || b[j] == '\r' || b[j] == '\t')) {
                j--;
            }
            return j;
        }
    }

    /** A scanner, its dictionary and its thread; {@link #fileIds} belongs to the reader's thread. */
    private static final class Worker {
        final ExecutorService thread;
        private final boolean keepPythonFunctions;
        private final JsonFactory factory;
        private final ObjectMapper mapper;
        private final RecordingInput chunk = new RecordingInput();
        private NameDictionary localNames;
        private ReadResult localResult;
        private EventScanner scanner;
        private boolean fresh;
        /** Set by the reader's thread before the next chunk is submitted (the submission publishes it). */
        boolean restartNames;
        /** The file's id of each of this worker's name ids, as far as handed on; -1 for none yet. */
        int[] fileIds = new int[256];

        Worker(boolean keepPythonFunctions, JsonFactory factory, ObjectMapper mapper, String threadName) {
            this.keepPythonFunctions = keepPythonFunctions;
            this.factory = factory;
            this.mapper = mapper;
            this.thread = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, threadName);
                t.setDaemon(true);
                return t;
            });
            Arrays.fill(fileIds, -1);
        }

        private void startNames() {
            localNames = new NameDictionary();
            localResult = new ReadResult();
            scanner = new EventScanner(chunk, localNames, new EventFields(localNames, localResult, mapper,
                    keepPythonFunctions), localResult, keepPythonFunctions, factory);
            fresh = true;
        }

        /** Scans one chunk, on this worker's thread, ending after {@code maxEvents} events. */
        Void scan(Chunk c, int maxEvents) {
            if (scanner == null || restartNames || localNames.textChars() > MAX_WORKER_NAME_CHARS) {
                startNames();
                restartNames = false;
            }
            c.freshNames = fresh;
            fresh = false;
            int before = localNames.size();
            chunk.over(c.bytes, c.length, c.start);
            c.count = 0;
            c.failure = null;
            try {
                scanner.scan(c.start, c.afterValue, c.event(0), e -> ++c.count < maxEvents ? c.event(c.count) : null);
                c.stoppedAt = scanner.stoppedAt();
                c.stoppedAfterValue = scanner.stoppedAfterValue();
                c.ranOut = scanner.ranOut();
            } catch (IOException | RuntimeException e) {
                // Thrown by the reader after the events before it, where a single scanner would have thrown it.
                c.failure = e;
            }
            c.firstNewName = before;
            c.newNames = new String[localNames.size() - before];
            for (int i = 0; i < c.newNames.length; i++) {
                c.newNames[i] = localNames.name(before + i);
            }
            c.anomalies = localResult.takeAnomalies();
            return null;
        }
    }

    /** Bytes of the list, and what a worker read from them. */
    private static final class Chunk {
        /** The chunk's bytes: {@link #chunkBytes}, or more while an event larger than that is in them. */
        byte[] bytes;
        int length;
        long start;
        boolean afterValue;
        /** The input ended in this chunk (or was damaged there). */
        boolean last;
        /** No cut in a whole chunk: not scanned. */
        boolean uncut;
        Worker worker;
        Future<?> done;
        TraceEvent[] events = new TraceEvent[0];
        int count;
        long stoppedAt;
        boolean stoppedAfterValue;
        boolean ranOut;
        /** What the worker's scanner threw, after the events before it. */
        Exception failure;
        boolean freshNames;
        int firstNewName;
        String[] newNames;
        Map<String, Long> anomalies;

        Chunk(int bytes) {
            this.bytes = new byte[bytes];
        }

        /** The holder of event {@code i}, kept for the chunk's next use. */
        TraceEvent event(int i) {
            if (i == events.length) {
                events = Arrays.copyOf(events, Math.max(64, 2 * i));
            }
            if (events[i] == null) {
                events[i] = new TraceEvent();
            }
            return events[i];
        }
    }
}
