package dev.steptrace.ingest;

import dev.steptrace.ingest.kineto.KinetoImporter;
import dev.steptrace.ingest.nsys.NsysImporter;
import dev.steptrace.ingest.rocprof.RocprofImporter;
import java.util.List;
import java.util.TreeSet;

/**
 * Every trace format steptrace reads, one importer each. A file is the trace of the importer that
 * claims it; when none does, the first refusal's reason is why it is skipped, so the order decides
 * only which reason a user reads: rocprofv3 before Nsight Systems (an SQLite file that is neither is
 * "no Nsight Systems tables", a rocpd database is rocprofv3's), and the JSON sniffer, which has
 * something to say about any file, last.
 */
public final class Importers {
    public static final List<Importer> ALL = List.of(
            new RocprofImporter(),
            new NsysImporter(),
            new KinetoImporter());

    private Importers() {}

    /** The importer of a stored format id, or null when none reads it. */
    public static Importer of(String format) {
        for (Importer importer : ALL) {
            if (importer.formats().contains(format)) {
                return importer;
            }
        }
        return null;
    }

    /** Whether the importer of a stored format id has {@code capability} (false for a format no importer reads). */
    public static boolean can(String format, Importer.Capability capability) {
        Importer importer = of(format);
        return importer != null && importer.capabilities().contains(capability);
    }

    /** The format ids of the importers that have {@code capability}, sorted. */
    public static List<String> formatsThatCan(Importer.Capability capability) {
        TreeSet<String> out = new TreeSet<>();
        for (Importer importer : ALL) {
            if (importer.capabilities().contains(capability)) {
                out.addAll(importer.formats());
            }
        }
        return List.copyOf(out);
    }

    /** The family of a stored format id ({@link Importer#family}), or the id itself for one no importer claims. */
    public static String family(String format) {
        Importer importer = of(format);
        return importer != null ? importer.family() : format;
    }
}
