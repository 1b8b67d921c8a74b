package dev.steptrace.ingest.nsys;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The store name ids of one nsys file. Names come two ways: text the reader has in hand (NVTX
 * {@code text}, the names it builds for memcpy, memset and graph rows), and references into
 * {@code StringIds} (kernel, runtime-call and NVTX {@code textId} names). A reference gets its id when
 * an event first uses it; its text is looked up only at the end, in one pass over {@code StringIds}
 * that keeps the referenced rows, so the heap holds the distinct names in use, never the table.
 *
 * <p>Runtime and driver call names carry the API version nsys appends ({@code cudaLaunchKernel_v7000});
 * references made with {@code stripVersion} drop that suffix, giving the names Kineto traces use.
 */
final class NsysNames {
    /** nsys's API version suffix: {@code _v} and digits at the end. */
    static final Pattern VERSION_SUFFIX = Pattern.compile("_v\\d+$");

    private final Map<String, Integer> literals = new HashMap<>();
    // Open addressing: key = stringId * 2 + (stripVersion ? 1 : 0); EMPTY marks a free slot.
    private static final long EMPTY = Long.MIN_VALUE;
    private long[] keys = new long[1024];
    private int[] ids = new int[1024];
    private int refs;
    private int next;

    NsysNames() {
        java.util.Arrays.fill(keys, EMPTY);
    }

    int literal(String name) {
        Integer id = literals.get(name);
        if (id == null) {
            id = next++;
            literals.put(name, id);
        }
        return id;
    }

    /** The id of {@code StringIds[stringId]} (version suffix dropped when asked). */
    int ref(long stringId, boolean stripVersion) {
        long key = key(stringId, stripVersion);
        int slot = slot(key);
        if (keys[slot] == key) {
            return ids[slot];
        }
        keys[slot] = key;
        ids[slot] = next;
        refs++;
        if (refs * 2 > keys.length) {
            grow();
        }
        return next++;
    }

    /** The id a reference already has, or -1. */
    int existing(long stringId, boolean stripVersion) {
        long key = key(stringId, stripVersion);
        int slot = slot(key);
        return keys[slot] == key ? ids[slot] : -1;
    }

    private static long key(long stringId, boolean stripVersion) {
        return (stringId << 1) | (stripVersion ? 1 : 0);
    }

    /** The slot holding {@code key}, or the free slot where it would go. */
    private int slot(long key) {
        int mask = keys.length - 1;
        int slot = mix(key) & mask;
        while (keys[slot] != key && keys[slot] != EMPTY) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    int references() {
        return refs;
    }

    Map<String, Integer> literals() {
        return literals;
    }

    /** Calls {@code action(stringId, stripVersion, id)} for every reference. */
    void forEachReference(RefAction action) {
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != EMPTY) {
                action.accept(keys[i] >> 1, (keys[i] & 1) != 0, ids[i]);
            }
        }
    }

    interface RefAction {
        void accept(long stringId, boolean stripVersion, int id);
    }

    static String stripVersion(String name) {
        return VERSION_SUFFIX.matcher(name).replaceFirst("");
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldIds = ids;
        keys = new long[oldKeys.length * 2];
        ids = new int[keys.length];
        java.util.Arrays.fill(keys, EMPTY);
        int mask = keys.length - 1;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != EMPTY) {
                int slot = mix(oldKeys[i]) & mask;
                while (keys[slot] != EMPTY) {
                    slot = (slot + 1) & mask;
                }
                keys[slot] = oldKeys[i];
                ids[slot] = oldIds[i];
            }
        }
    }

    private static int mix(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }
}
