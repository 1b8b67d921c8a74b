package dev.steptrace.analysis;

import java.util.Arrays;

/**
 * The end times of the intervals open at a moment of a sweep in time order, the earliest first (a binary min-heap):
 * what the passes over a file's ranges or operations close as time moves past them. Each end may carry a tag (what
 * the interval was), so that one heap serves intervals of several kinds.
 */
final class OpenEnds {
    private long[] ends = new long[16];
    private int[] tags = new int[16];
    private int open;

    /** How many intervals are open. */
    int size() {
        return open;
    }

    /** The earliest end, or {@link Long#MAX_VALUE} when none is open. */
    long first() {
        return open == 0 ? Long.MAX_VALUE : ends[0];
    }

    /** The earliest end's tag; only while one is open. */
    int firstTag() {
        return tags[0];
    }

    void clear() {
        open = 0;
    }

    void add(long endNs) {
        add(endNs, 0);
    }

    void add(long endNs, int tag) {
        if (open == ends.length) {
            ends = Arrays.copyOf(ends, 2 * open);
            tags = Arrays.copyOf(tags, 2 * open);
        }
        int i = open++;
        ends[i] = endNs;
        tags[i] = tag;
        while (i > 0 && ends[(i - 1) / 2] > ends[i]) {
            swap(i, (i - 1) / 2);
            i = (i - 1) / 2;
        }
    }

    /** Closes the earliest end. */
    void removeFirst() {
        ends[0] = ends[--open];
        tags[0] = tags[open];
        for (int i = 0; ; ) {
            int least = i;
            for (int k = 2 * i + 1; k <= 2 * i + 2 && k < open; k++) {
                if (ends[k] < ends[least]) {
                    least = k;
                }
            }
            if (least == i) {
                return;
            }
            swap(i, least);
            i = least;
        }
    }

    private void swap(int i, int j) {
        long e = ends[i];
        ends[i] = ends[j];
        ends[j] = e;
        int tag = tags[i];
        tags[i] = tags[j];
        tags[j] = tag;
    }
}
