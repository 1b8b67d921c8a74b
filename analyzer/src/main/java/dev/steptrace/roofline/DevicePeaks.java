package dev.steptrace.roofline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.steptrace.common.BoundedRegex;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The peak rates of the GPUs steptrace knows, as data: {@code device-peaks.yaml} beside this class,
 * every number with its public source, and optionally a user's file tried first
 * ({@code --device-peaks FILE}). A trace's device name is matched against each entry's pattern in
 * order; no match means the peaks are unknown, never guessed. docs/roofline.md describes the format.
 */
public final class DevicePeaks {
    static final String BUILT_IN = "built-in device-peaks.yaml";
    private static final Set<String> TOP = Set.of("version", "sources", "devices");
    private static final Set<String> SOURCE = Set.of("title", "url");
    private static final Set<String> DEVICE = Set.of("id", "label", "match", "source", "note", "bf16_tflops",
            "fp16_tflops", "fp8_tflops", "int8_tops", "hbm_gbps", "interconnect", "interconnect_gbps");

    /** Where a device's numbers come from. */
    public record Source(String title, String url) {}

    /**
     * One device's dense peaks; a rate the sources do not state is null.
     *
     * @param interconnectGbps GPU-to-GPU bandwidth as the source prints it: both directions together
     */
    public record Device(String id, String label, Pattern match, Source source, String note, Double bf16Tflops,
                         Double fp16Tflops, Double fp8Tflops, Double int8Tops, Double hbmGbps,
                         String interconnect, Double interconnectGbps, String origin) {
        /** The tensor-core peak for a precision in TFLOP/s (TOP/s for int8), or null when unknown. */
        public Double tflops(Precision p) {
            if (p == null) {
                return null;
            }
            return switch (p) {
                case BF16 -> bf16Tflops;
                case FP16 -> fp16Tflops;
                case FP8 -> fp8Tflops;
                case INT8 -> int8Tops;
            };
        }

        /** One direction of the GPU-to-GPU link, what a collective's bus bandwidth is measured against. */
        public Double linkGbpsOneWay() {
            return interconnectGbps == null ? null : interconnectGbps / 2;
        }
    }

    private final List<Device> devices;
    private final Map<String, Source> sources;

    private DevicePeaks(List<Device> devices, Map<String, Source> sources) {
        this.devices = List.copyOf(devices);
        this.sources = Map.copyOf(sources);
    }

    /** The shipped peaks. */
    public static DevicePeaks builtIn() {
        return BuiltIn.INSTANCE;
    }

    private static final class BuiltIn {
        static final DevicePeaks INSTANCE = load();

        private static DevicePeaks load() {
            try (InputStream in = DevicePeaks.class.getResourceAsStream("device-peaks.yaml")) {
                if (in == null) {
                    throw new IllegalStateException("missing resource device-peaks.yaml");
                }
                byte[] bytes = in.readAllBytes();
                Map<String, Source> sources = new HashMap<>();
                List<Device> devices = parse(YamlFiles.parse(bytes, BUILT_IN), BUILT_IN, sources);
                return new DevicePeaks(devices, sources);
            } catch (IOException e) {
                throw new IllegalStateException("cannot read resource device-peaks.yaml", e);
            }
        }
    }

    /** These peaks with a user's file in front (its entries win); its devices may cite the built-in sources. */
    public DevicePeaks withUserFile(Path file) {
        String origin = "device peaks file " + file;
        JsonNode root = YamlFiles.read(file, "device peaks file");
        Map<String, Source> known = new HashMap<>(sources);
        List<Device> user = parse(root, origin, known);
        List<Device> all = new ArrayList<>(user);
        all.addAll(devices);
        return new DevicePeaks(all, known);
    }

    /** The first device whose pattern is found in {@code name}, or null (unknown peaks). */
    public Device match(String name) {
        if (name == null) {
            return null;
        }
        for (Device d : devices) {
            try {
                if (BoundedRegex.find(d.match(), name)) {
                    return d;
                }
            } catch (BoundedRegex.TooSlow e) {
                throw e.in("device peaks of " + d.id());
            }
        }
        return null;
    }

    public List<Device> devices() {
        return devices;
    }

    /** The file's devices; its sources are added to {@code sources}, which may hold sources it cites. */
    private static List<Device> parse(JsonNode root, String origin, Map<String, Source> sources) {
        YamlFiles.onlyKeys(root, TOP, origin);
        JsonNode src = root.path("sources");
        if (!src.isMissingNode() && !src.isObject()) {
            throw new RooflineFileException(origin + ": sources must be a mapping of id to title and url");
        }
        src.fields().forEachRemaining(e -> {
            String where = origin + ": source " + e.getKey();
            YamlFiles.onlyKeys(e.getValue(), SOURCE, where);
            sources.put(e.getKey(), new Source(YamlFiles.required(e.getValue(), "title", where),
                    YamlFiles.required(e.getValue(), "url", where)));
        });
        JsonNode list = root.path("devices");
        if (!list.isArray() || list.isEmpty()) {
            throw new RooflineFileException(origin + ": devices must be a non-empty list");
        }
        List<Device> out = new ArrayList<>();
        Set<String> ids = new java.util.HashSet<>();
        for (JsonNode d : list) {
            String id = d.isObject() ? YamlFiles.text(d, "id", origin) : null;
            String where = origin + ": device " + (id == null ? "#" + (out.size() + 1) : id);
            if (!d.isObject() || id == null) {
                throw new RooflineFileException(where + ": each device is a mapping with an id");
            }
            YamlFiles.onlyKeys(d, DEVICE, where);
            if (!ids.add(id)) {
                throw new RooflineFileException(where + ": the id appears twice");
            }
            String sourceKey = YamlFiles.required(d, "source", where);
            Source source = sources.get(sourceKey);
            if (source == null) {
                throw new RooflineFileException(where + ": source " + sourceKey
                        + " is not listed under sources (every number needs its source)");
            }
            Pattern match;
            try {
                match = Pattern.compile(YamlFiles.required(d, "match", where), Pattern.CASE_INSENSITIVE);
            } catch (PatternSyntaxException e) {
                throw new RooflineFileException(where + ": match is not a valid regular expression: " + e.getDescription());
            }
            out.add(new Device(id, YamlFiles.text(d, "label", where) == null ? id : YamlFiles.text(d, "label", where),
                    match, source, YamlFiles.text(d, "note", where),
                    YamlFiles.positive(d, "bf16_tflops", where), YamlFiles.positive(d, "fp16_tflops", where),
                    YamlFiles.positive(d, "fp8_tflops", where), YamlFiles.positive(d, "int8_tops", where),
                    YamlFiles.positive(d, "hbm_gbps", where), YamlFiles.text(d, "interconnect", where),
                    YamlFiles.positive(d, "interconnect_gbps", where), origin));
        }
        return out;
    }
}
