package dev.steptrace.ingest.kineto;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Maps the distinct event names of one file to dense ids without building a String per event.
 *
 * <p>Kernel names are often kilobytes of C++ template text and repeat thousands of times, so a
 * per-event {@code new String} plus {@code hashCode} would cost more than parsing the JSON. The hash
 * samples the length, both ends and a stride through the middle; equality is a full (vectorized)
 * {@link Arrays#equals} so names that share a sample still get distinct ids.
 */
public final class NameDictionary {
    private static final int SAMPLES = 16;

    private char[][] keys = new char[64][];
    private int[] ids = new int[64];
    private int[] hashes = new int[64];
    private final List<String> names = new ArrayList<>();
    private final List<char[]> chars = new ArrayList<>();

    public int idOf(char[] buf, int off, int len) {
        int h = hash(buf, off, len);
        int mask = keys.length - 1;
        int slot = h & mask;
        while (true) {
            char[] key = keys[slot];
            if (key == null) {
                return insert(slot, h, buf, off, len);
            }
            if (hashes[slot] == h && key.length == len && Arrays.equals(key, 0, len, buf, off, off + len)) {
                return ids[slot];
            }
            slot = (slot + 1) & mask;
        }
    }

    public int idOf(String name) {
        char[] c = name.toCharArray();
        return idOf(c, 0, c.length);
    }

    public String name(int id) {
        String s = names.get(id);
        if (s == null) {
            s = new String(chars.get(id));
            names.set(id, s);
        }
        return s;
    }

    public int size() {
        return chars.size();
    }

    private int insert(int slot, int h, char[] buf, int off, int len) {
        int id = chars.size();
        char[] copy = Arrays.copyOfRange(buf, off, off + len);
        chars.add(copy);
        names.add(null);
        keys[slot] = copy;
        ids[slot] = id;
        hashes[slot] = h;
        if (chars.size() * 2 > keys.length) {
            grow();
        }
        return id;
    }

    private void grow() {
        char[][] oldKeys = keys;
        int[] oldIds = ids;
        int[] oldHashes = hashes;
        keys = new char[oldKeys.length * 2][];
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

    private static int hash(char[] buf, int off, int len) {
        int h = len * 0x9E3779B9;
        if (len <= 2 * SAMPLES) {
            for (int i = 0; i < len; i++) {
                h = 31 * h + buf[off + i];
            }
        } else {
            for (int i = 0; i < SAMPLES; i++) {
                h = 31 * h + buf[off + i];
                h = 31 * h + buf[off + len - 1 - i];
            }
            int stride = len / SAMPLES;
            for (int i = SAMPLES / 2; i < len; i += stride) {
                h = 31 * h + buf[off + i];
            }
        }
        return h ^ (h >>> 16);
    }
}
