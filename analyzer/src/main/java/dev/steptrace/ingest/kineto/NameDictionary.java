package dev.steptrace.ingest.kineto;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Maps the distinct event names of one file to dense ids without building a String per event.
 *
 * <p>Kernel names are often kilobytes of C++ template text and repeat thousands of times, so a
 * per-event {@code new String} plus {@code hashCode} would cost more than parsing the JSON. The hash
 * samples the length, both ends and a stride through the middle; equality is a full (vectorized)
 * {@link Arrays#equals} so names that share a sample still get distinct ids. When many names share
 * one (they differ only where the samples do not look), every character is hashed from then on.
 *
 * <p>Names are data, and a file may hold millions of distinct ones: the text of at most
 * {@value #TEXT_BUDGET} characters of names is kept. Once that is used up, a new name goes to the
 * {@link Spill} given (the store writes it at once) and only its SHA-256 (the first 128 bits) stays,
 * 20 bytes per name whatever its length; later occurrences are found by that digest. Without a
 * spill, every text is kept.
 */
public final class NameDictionary {
    /** Characters of name text kept (32 MB as UTF-16); the names of a real trace take a fraction of it. */
    static final long TEXT_BUDGET = 16L << 20;
    private static final int SAMPLES = 16;
    /** Names with the same sampled hash met in one lookup before every character is hashed instead. */
    private static final int MAX_COLLISIONS = 32;

    /** Receives the text of a name that the dictionary does not keep, when it gets its id. */
    public interface Spill {
        void name(int id, char[] buf, int off, int len);
    }

    private final Spill spill;
    private boolean hashEveryChar;
    private long textChars;
    private int nextId;

    private char[][] keys = new char[64][];
    private int[] ids = new int[64];
    private int[] hashes = new int[64];
    private final List<char[]> chars = new ArrayList<>();

    /** Names past the text budget, by digest: open addressing over (hi, lo) pairs, id + 1 (0 is empty). */
    private long[] digestHi;
    private long[] digestLo;
    private int[] digestIds;
    private int digests;
    private MessageDigest sha256;
    private ByteBuffer utf16;

    /** A dictionary that keeps every name's text. */
    public NameDictionary() {
        this(null);
    }

    /** A dictionary that keeps names' text up to {@link #TEXT_BUDGET}, then hands new names to {@code spill}. */
    public NameDictionary(Spill spill) {
        this.spill = spill;
    }

    public int idOf(char[] buf, int off, int len) {
        int h = hash(buf, off, len);
        int mask = keys.length - 1;
        int slot = h & mask;
        int collisions = 0;
        while (true) {
            char[] key = keys[slot];
            if (key == null) {
                return spill != null && textChars >= TEXT_BUDGET ? idOfDigest(buf, off, len) : insert(slot, h, buf, off, len);
            }
            if (hashes[slot] == h) {
                if (key.length == len && Arrays.equals(key, 0, len, buf, off, off + len)) {
                    return ids[slot];
                }
                if (++collisions > MAX_COLLISIONS && !hashEveryChar) {
                    // Names that differ only where the hash does not look (many template instances of one
                    // long signature): hash every character from now on, so lookups stay short.
                    hashEveryChar = true;
                    rehash(keys.length);
                    return idOf(buf, off, len);
                }
            }
            slot = (slot + 1) & mask;
        }
    }

    public int idOf(String name) {
        char[] c = name.toCharArray();
        return idOf(c, 0, c.length);
    }

    /** The name of {@code id}, or null for a name whose text went to the {@link Spill}. */
    public String name(int id) {
        return id < chars.size() ? new String(chars.get(id)) : null;
    }

    /** Ids below this have their text here ({@link #name}); the others were spilled. */
    public int keptTexts() {
        return chars.size();
    }

    public int size() {
        return nextId;
    }

    /** Characters of name text kept. */
    long textChars() {
        return textChars;
    }

    private int insert(int slot, int h, char[] buf, int off, int len) {
        int id = nextId++;
        char[] copy = Arrays.copyOfRange(buf, off, off + len);
        chars.add(copy);
        textChars += len;
        keys[slot] = copy;
        ids[slot] = id;
        hashes[slot] = h;
        if (chars.size() * 2 > keys.length) {
            grow();
        }
        return id;
    }

    private void grow() {
        rehash(keys.length * 2);
    }

    private void rehash(int size) {
        char[][] oldKeys = keys;
        int[] oldIds = ids;
        int[] oldHashes = hashes;
        keys = new char[size][];
        ids = new int[size];
        hashes = new int[size];
        int mask = size - 1;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != null) {
                int h = hashEveryChar ? hash(oldKeys[i], 0, oldKeys[i].length) : oldHashes[i];
                int slot = h & mask;
                while (keys[slot] != null) {
                    slot = (slot + 1) & mask;
                }
                keys[slot] = oldKeys[i];
                ids[slot] = oldIds[i];
                hashes[slot] = h;
            }
        }
    }

    /** A name past the text budget: found by its digest, or given the next id and spilled. */
    private int idOfDigest(char[] buf, int off, int len) {
        if (digestIds == null) {
            digestHi = new long[1 << 16];
            digestLo = new long[1 << 16];
            digestIds = new int[1 << 16];
            sha256 = sha256();
            utf16 = ByteBuffer.allocate(1 << 12);
        }
        if (utf16.capacity() < 2 * len) {
            utf16 = ByteBuffer.allocate(Integer.highestOneBit(2 * len) << 1);
        }
        utf16.clear();
        utf16.asCharBuffer().put(buf, off, len);
        sha256.update(utf16.array(), 0, 2 * len);
        ByteBuffer d = ByteBuffer.wrap(sha256.digest());
        long hi = d.getLong();
        long lo = d.getLong();
        int mask = digestIds.length - 1;
        int slot = (int) lo & mask;
        while (digestIds[slot] != 0) {
            if (digestHi[slot] == hi && digestLo[slot] == lo) {
                return digestIds[slot] - 1;
            }
            slot = (slot + 1) & mask;
        }
        int id = nextId++;
        digestHi[slot] = hi;
        digestLo[slot] = lo;
        digestIds[slot] = id + 1;
        if (++digests * 2 > digestIds.length) {
            growDigests();
        }
        spill.name(id, buf, off, len);
        return id;
    }

    private void growDigests() {
        long[] oldHi = digestHi;
        long[] oldLo = digestLo;
        int[] oldIds = digestIds;
        digestHi = new long[oldIds.length * 2];
        digestLo = new long[digestHi.length];
        digestIds = new int[digestHi.length];
        int mask = digestIds.length - 1;
        for (int i = 0; i < oldIds.length; i++) {
            if (oldIds[i] != 0) {
                int slot = (int) oldLo[i] & mask;
                while (digestIds[slot] != 0) {
                    slot = (slot + 1) & mask;
                }
                digestHi[slot] = oldHi[i];
                digestLo[slot] = oldLo[i];
                digestIds[slot] = oldIds[i];
            }
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-256", e);
        }
    }

    private int hash(char[] buf, int off, int len) {
        int h = len * 0x9E3779B9;
        if (len <= 2 * SAMPLES || hashEveryChar) {
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
