package dev.steptrace.ingest.kineto;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
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
    /** Longer strings are hashed by samples: {@value #SAMPLES} words through them, and both ends. */
    private static final int WHOLE = 256;
    private static final int SAMPLES = 16;
    private static final long MIX = 0x9E3779B97F4A7C15L;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int MAX_PROBES = 64;

    private byte[][] keys = new byte[256][];
    private int[] ids = new int[256];
    private int[] hashes = new int[256];
    private int count;
    private long bytes;

    /**
     * A hash of the bytes, eight at a time (a multiply per byte was a tenth of the scanner's time): all of
     * them for strings up to {@value #WHOLE} bytes, both ends and a stride through the middle for longer ones.
     */
    static int hash(byte[] b, int off, int len) {
        long h = len * MIX;
        if (len < Long.BYTES) {
            long w = 0;
            for (int i = 0; i < len; i++) {
                w |= (b[off + i] & 0xFFL) << (8 * i);
            }
            h = mix(h, w);
        } else {
            int last = off + len - Long.BYTES;
            if (len <= WHOLE) {
                for (int i = off; i < last; i += Long.BYTES) {
                    h = mix(h, (long) LONGS.get(b, i));
                }
            } else {
                int stride = (len / SAMPLES) & ~(Long.BYTES - 1);
                for (int i = 0; i < SAMPLES; i++) {
                    h = mix(h, (long) LONGS.get(b, off + i * stride));
                }
                h = mix(h, (long) LONGS.get(b, last - Long.BYTES));
            }
            h = mix(h, (long) LONGS.get(b, last));
        }
        return (int) (h ^ (h >>> 32));
    }

    /** One step of the hash: the rotation brings the product's high bits, which every input bit reaches, down. */
    private static long mix(long h, long word) {
        return Long.rotateLeft((h ^ word) * MIX, 31);
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
