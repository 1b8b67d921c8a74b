package dev.steptrace.ingest.kineto;

import java.util.Arrays;

/**
 * Ids of strings by their raw bytes as the file writes them (between the quotes, escapes not
 * decoded), so a name seen before costs a hash and a vectorized compare, no decoding. The same text
 * written two ways (an escape, or not) gets two entries with the same id.
 *
 * <p>Bounded: once {@value #BUDGET} bytes of keys are kept, new strings are no longer added, and
 * the caller looks them up by their decoded text as before. A lookup that meets too many keys with
 * the same hash (long names that differ only where the sampled hash does not look) also gives up.
 */
final class ByteNames {
    static final long BUDGET = 32L << 20;
    private static final int SAMPLES = 16;
    private static final int MAX_PROBES = 64;

    private byte[][] keys = new byte[256][];
    private int[] ids = new int[256];
    private int[] hashes = new int[256];
    private int count;
    private long bytes;

    /** A hash of the bytes: all of them for short strings, both ends and a stride for long ones. */
    static int hash(byte[] b, int off, int len) {
        int h = len * 0x9E3779B9;
        if (len <= 4 * SAMPLES) {
            for (int i = off, end = off + len; i < end; i++) {
                h = 31 * h + b[i];
            }
        } else {
            for (int i = 0; i < SAMPLES; i++) {
                h = 31 * h + b[off + i];
                h = 31 * h + b[off + len - 1 - i];
            }
            int stride = len / SAMPLES;
            for (int i = SAMPLES / 2; i < len; i += stride) {
                h = 31 * h + b[off + i];
            }
        }
        return h ^ (h >>> 16);
    }

    /** The id of these bytes, or -1 when they are not here. */
    int find(byte[] b, int off, int len, int h) {
        int mask = keys.length - 1;
        int slot = h & mask;
        for (int probes = 0; probes < MAX_PROBES; probes++) {
            byte[] key = keys[slot];
            if (key == null) {
                return -1;
            }
            if (hashes[slot] == h && key.length == len && Arrays.equals(key, 0, len, b, off, off + len)) {
                return ids[slot];
            }
            slot = (slot + 1) & mask;
        }
        return -1;
    }

    /** Remembers the id of bytes that {@link #find} did not find (unless over the budget or crowded). */
    void put(byte[] b, int off, int len, int h, int id) {
        if (bytes + len > BUDGET) {
            return;
        }
        int mask = keys.length - 1;
        int slot = h & mask;
        for (int probes = 0; keys[slot] != null; probes++) {
            if (probes == MAX_PROBES) {
                return;
            }
            slot = (slot + 1) & mask;
        }
        keys[slot] = Arrays.copyOfRange(b, off, off + len);
        ids[slot] = id;
        hashes[slot] = h;
        bytes += len;
        if (++count * 2 > keys.length) {
            grow();
        }
    }

    private void grow() {
        byte[][] oldKeys = keys;
        int[] oldIds = ids;
        int[] oldHashes = hashes;
        keys = new byte[oldKeys.length * 2][];
        ids = new int[keys.length];
        hashes = new int[keys.length];
        int mask = keys.length - 1;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != null) {
                int slot = oldHashes[i] & mask;
                while (keys[slot] != null) {
                    slot = (slot + 1) & mask;
                }
                keys[slot] = oldKeys[i];
                ids[slot] = oldIds[i];
                hashes[slot] = oldHashes[i];
            }
        }
    }
}
