package dev.steptrace.ingest.nsys;

/**
 * Names for GPU activities that nsys stores as numbers (memcpy, memset, synchronization), spelled as
 * Kineto spells them (libkineto's {@code memcpyKindString}, {@code memoryKindString},
 * {@code syncTypeString}): {@code Memcpy HtoD (Pageable -> Device)}, {@code Memset (Device)},
 * {@code Stream Sync}. The same activity thus has the same name whichever profiler recorded it, which
 * keeps diffs between a Kineto and an nsys capture meaningful.
 *
 * <p>Numbers follow nsys's enums (which the export also carries as {@code ENUM_*} tables):
 * {@code ENUM_CUDA_MEMCPY_OPER} (CUPTI's memcpy kinds), {@code ENUM_CUDA_MEM_KIND} (nsys's own order:
 * 0 Pageable, 1 Pinned, 2 Device, ..., 7 Unknown, which differs from CUPTI's) and
 * {@code ENUM_CUPTI_SYNC_TYPE}.
 */
public final class CuptiNames {
    private static final String[] COPY_KINDS = {
        "Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP",
        "HtoD", "DtoH", "DtoD"};
    private static final String[] MEM_KINDS = {
        "Pageable", "Pinned", "Device", "Array", "Managed", "Device Static", "Managed Static", "Unknown"};
    private static final String[] SYNC_TYPES = {
        "Unknown Sync", "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync"};

    /** nsys's {@code ENUM_CUDA_MEM_KIND} codes, for writers of nsys exports. */
    public static final int MEM_PAGEABLE = 0;
    public static final int MEM_PINNED = 1;
    public static final int MEM_DEVICE = 2;

    private CuptiNames() {}

    /** {@code Memcpy DtoH (Device -> Pinned)}; unknown codes read "Unknown". */
    public static String memcpy(long copyKind, long srcKind, long dstKind) {
        return "Memcpy " + pick(COPY_KINDS, copyKind) + " (" + pick(MEM_KINDS, srcKind) + " -> "
                + pick(MEM_KINDS, dstKind) + ")";
    }

    /** {@code Memset (Device)}. */
    public static String memset(long memKind) {
        return "Memset (" + pick(MEM_KINDS, memKind) + ")";
    }

    public static String sync(long syncType) {
        return syncType >= 0 && syncType < SYNC_TYPES.length ? SYNC_TYPES[(int) syncType] : SYNC_TYPES[0];
    }

    /** The nsys code of a memory kind as Kineto names it ("Pinned"), or 7 (Unknown). */
    public static int memKindCode(String name) {
        for (int i = 0; i < MEM_KINDS.length; i++) {
            if (MEM_KINDS[i].equals(name)) {
                return i;
            }
        }
        return 7;
    }

    /** The CUPTI code of a copy kind as Kineto names it ("DtoH"), or 0 (Unknown). */
    public static int copyKindCode(String name) {
        for (int i = 0; i <= 10; i++) {
            if (COPY_KINDS[i].equals(name)) {
                return i;
            }
        }
        return 0;
    }

    private static String pick(String[] names, long code) {
        return code >= 0 && code < names.length ? names[(int) code] : "Unknown";
    }
}
