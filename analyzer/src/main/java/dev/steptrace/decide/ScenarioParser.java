package dev.steptrace.decide;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.steptrace.classify.Category;
import dev.steptrace.common.Messages;
import dev.steptrace.common.Phase;
import dev.steptrace.report.Fmt;
import dev.steptrace.whatif.Changes;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Reads and checks a scenario file (YAML or JSON, docs/scenarios.md). Every field is checked here,
 * with unknown fields refused (a misspelt key would otherwise silently change a decision); a problem
 * is one {@link ScenarioException} line: {@code FILE: FIELD: what is wrong}.
 */
public final class ScenarioParser {
    private static final ObjectMapper YAML = YAMLMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).build();
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).build();
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");

    private final String source;

    private ScenarioParser(String source) {
        this.source = source;
    }

    /**
     * @param source the file's name for messages (as the user gave it)
     * @param json   parse as JSON (else YAML, which also reads most JSON)
     */
    public static Scenario parse(String text, String source, boolean json) {
        return new ScenarioParser(source).parse(text, json);
    }

    private Scenario parse(String text, boolean json) {
        JsonNode root;
        try {
            root = (json ? JSON : YAML).readTree(text);
        } catch (JsonProcessingException e) {
            throw new ScenarioException(Messages.notParsed(source, json ? "JSON" : "YAML", e), e);
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            throw new ScenarioException(source + ": the file is empty (docs/scenarios.md shows a full example)");
        }
        ObjectNode top = object(root, "");
        keys(top, "", "schema", "id", "title", "question", "hardware", "constraints", "measured", "options");
        String schema = string(top, "", "schema", false);
        if (schema != null && !schema.equals(Scenario.SCHEMA)) {
            throw fail("schema", "expected \"" + Scenario.SCHEMA + "\", got \"" + schema + "\"");
        }
        String id = string(top, "", "id", false);
        if (id != null && !ID.matcher(id).matches()) {
            throw fail("id", "expected letters, digits, '_', '-' or '.', got \"" + id + "\"");
        }
        String title = string(top, "", "title", false);
        Scenario.Question question = question(required(top, "", "question"));
        Scenario.Hardware hardware = top.has("hardware") && !top.get("hardware").isNull()
                ? hardware(top.get("hardware")) : new Scenario.Hardware(null, null, null, null, null, false);
        Map<String, String> constraints = constraints(top.get("constraints"));
        Map<String, Scenario.Measured> measured = measured(top.get("measured"));
        List<Scenario.Option> options = options(required(top, "", "options"), constraints, measured);
        return new Scenario(id, title, source, question, hardware, constraints, measured, options);
    }

    // ---- sections ----

    private Scenario.Question question(JsonNode node) {
        String p = "question";
        ObjectNode q = object(node, p);
        keys(q, p, "text", "phase", "tax", "min_speedup", "batch", "operating_batches", "premise_share_pct");
        String phase = string(q, p, "phase", false);
        if (phase == null) {
            phase = "decode";
        } else if (!Phase.IDS.contains(phase)) {
            throw fail(p + ".phase", "expected one of " + String.join(", ", Phase.IDS) + ", got \"" + phase + "\"");
        }
        String tax = string(q, p, "tax", true);
        if (!Scenario.STEP_PARTS.contains(tax)) {
            category(tax, p + ".tax");
        }
        Double min = number(q, p, "min_speedup", true);
        if (min < 1) {
            throw fail(p + ".min_speedup", "expected a speedup of at least 1 (1.10 means 10% faster), got " + Fmt.plain(min));
        }
        Integer batch = positiveInt(q, p, "batch", false);
        List<Integer> operating = new ArrayList<>();
        JsonNode ob = q.get("operating_batches");
        if (ob != null && !ob.isNull()) {
            ArrayNode a = array(ob, p + ".operating_batches");
            for (int i = 0; i < a.size(); i++) {
                operating.add(positiveInt(a.get(i), p + ".operating_batches[" + i + "]"));
            }
        }
        Double premise = number(q, p, "premise_share_pct", false);
        if (premise != null && (premise <= 0 || premise > 100)) {
            throw fail(p + ".premise_share_pct", "expected a share of the phase's step above 0 and at most 100 (percent),"
                    + " got " + Fmt.plain(premise));
        }
        return new Scenario.Question(string(q, p, "text", false), phase, tax, min, batch, List.copyOf(operating), premise);
    }

    private Scenario.Hardware hardware(JsonNode node) {
        String p = "hardware";
        ObjectNode h = object(node, p);
        keys(h, p, "gpu", "gpus", "interconnect", "link_gbps", "collective_latency_us", "capture_stands_in");
        Double link = number(h, p, "link_gbps", false);
        if (link != null && link <= 0) {
            throw fail(p + ".link_gbps", "expected a bandwidth above 0 GB/s, got " + Fmt.plain(link));
        }
        Double latency = number(h, p, "collective_latency_us", false);
        if (latency != null && latency < 0) {
            throw fail(p + ".collective_latency_us", "expected a latency of at least 0 µs, got " + Fmt.plain(latency));
        }
        String interconnect = string(h, p, "interconnect", false);
        if (interconnect != null) {
            interconnect = interconnect.toLowerCase(java.util.Locale.ROOT);
            if (!Scenario.Hardware.INTERCONNECTS.contains(interconnect)) {
                throw fail(p + ".interconnect", "expected one of " + String.join(", ", Scenario.Hardware.INTERCONNECTS)
                        + ", got \"" + interconnect + "\"");
            }
        }
        boolean standsIn = false;
        if (h.has("capture_stands_in") && !h.get("capture_stands_in").isNull()) {
            if (!h.get("capture_stands_in").isBoolean()) {
                throw fail(p + ".capture_stands_in", "expected true or false, got " + kind(h.get("capture_stands_in")));
            }
            standsIn = h.get("capture_stands_in").asBoolean();
        }
        return new Scenario.Hardware(string(h, p, "gpu", false), positiveInt(h, p, "gpus", false), interconnect, link,
                latency, standsIn);
    }

    private Map<String, String> constraints(JsonNode node) {
        Map<String, String> out = new LinkedHashMap<>();
        if (node == null || node.isNull()) {
            return out;
        }
        ObjectNode c = object(node, "constraints");
        for (Iterator<Map.Entry<String, JsonNode>> it = c.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String path = "constraints." + e.getKey();
            if (!ID.matcher(e.getKey()).matches()) {
                throw fail(path, "expected a name of letters, digits, '_', '-' or '.'");
            }
            if (!e.getValue().isValueNode() || e.getValue().isNull()) {
                throw fail(path, "expected a value such as no_reduction (a word, a number or true/false), got " + kind(e.getValue()));
            }
            out.put(e.getKey(), e.getValue().asText());
        }
        return out;
    }

    private Map<String, Scenario.Measured> measured(JsonNode node) {
        Map<String, Scenario.Measured> out = new LinkedHashMap<>();
        if (node == null || node.isNull()) {
            return out;
        }
        ObjectNode m = object(node, "measured");
        for (Iterator<Map.Entry<String, JsonNode>> it = m.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String name = e.getKey();
            String p = "measured." + name;
            if (!ID.matcher(name).matches()) {
                throw fail(p, "expected a name of letters, digits, '_', '-' or '.'");
            }
            ObjectNode t = object(e.getValue(), p);
            if (t.has("by_batch")) {
                keys(t, p, "description", "unit", "source", "by_batch");
                out.put(name, table(name, t, p));
            } else if (t.has("total_ms") || t.has("calls")) {
                keys(t, p, "description", "collective", "calls", "message_bytes", "total_ms", "source");
                Integer calls = positiveInt(t, p, "calls", true);
                Double bytes = number(t, p, "message_bytes", false);
                if (bytes != null && bytes <= 0) {
                    throw fail(p + ".message_bytes", "expected a size above 0 bytes, got " + Fmt.plain(bytes));
                }
                Double total = number(t, p, "total_ms", true);
                if (total <= 0) {
                    throw fail(p + ".total_ms", "expected a time above 0 ms, got " + Fmt.plain(total));
                }
                out.put(name, new Scenario.Burst(name, string(t, p, "description", false), string(t, p, "collective", false),
                        calls, bytes, total, string(t, p, "source", false)));
            } else {
                throw fail(p, "expected by_batch (a measurement by batch size) or calls and total_ms (a burst timing)");
            }
        }
        return out;
    }

    private Scenario.Table table(String name, ObjectNode t, String p) {
        ObjectNode by = object(t.get("by_batch"), p + ".by_batch");
        SortedMap<Integer, double[]> values = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = by.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String vp = p + ".by_batch." + e.getKey();
            int batch;
            try {
                batch = Integer.parseInt(e.getKey().strip());
            } catch (NumberFormatException ex) {
                throw fail(vp, "expected a batch size (a whole number above 0) as the key");
            }
            if (batch <= 0) {
                throw fail(vp, "expected a batch size (a whole number above 0) as the key");
            }
            JsonNode v = e.getValue();
            double lo;
            double hi;
            if (v.isArray()) {
                if (v.size() != 2 || !v.get(0).isNumber() || !v.get(1).isNumber()) {
                    throw fail(vp, "expected a number or a range [low, high] of two numbers");
                }
                lo = v.get(0).asDouble();
                hi = v.get(1).asDouble();
                if (lo > hi) {
                    throw fail(vp, "a range is [low, high]; got low " + Fmt.plain(lo) + " above high " + Fmt.plain(hi));
                }
            } else if (v.isNumber()) {
                lo = hi = v.asDouble();
            } else {
                throw fail(vp, "expected a number or a range [low, high], got " + kind(v));
            }
            if (lo < 0 || !Double.isFinite(hi)) {
                throw fail(vp, "expected a value of at least 0");
            }
            values.put(batch, new double[] {lo, hi});
        }
        if (values.isEmpty()) {
            throw fail(p + ".by_batch", "expected at least one batch size and its value");
        }
        return new Scenario.Table(name, string(t, p, "description", false), string(t, p, "unit", false),
                string(t, p, "source", false), values);
    }

    private List<Scenario.Option> options(JsonNode node, Map<String, String> constraints,
                                          Map<String, Scenario.Measured> measured) {
        ArrayNode a = array(node, "options");
        List<Scenario.Option> out = new ArrayList<>();
        Set<String> ids = new LinkedHashSet<>();
        for (int i = 0; i < a.size(); i++) {
            String p = "options[" + i + "]";
            ObjectNode o = object(a.get(i), p);
            keys(o, p, "id", "title", "effect", "violates", "evidence", "revisit_when");
            String id = string(o, p, "id", true);
            if (!ID.matcher(id).matches()) {
                throw fail(p + ".id", "expected letters, digits, '_', '-' or '.', got \"" + id + "\"");
            }
            if (!ids.add(id)) {
                throw fail(p + ".id", "\"" + id + "\" is the id of an earlier option too");
            }
            Scenario.Effect effect = effect(required(o, p, "effect"), p + ".effect", measured);
            List<String> violates = new ArrayList<>();
            JsonNode v = o.get("violates");
            if (v != null && !v.isNull()) {
                ArrayNode va = array(v, p + ".violates");
                for (int j = 0; j < va.size(); j++) {
                    String vp = p + ".violates[" + j + "]";
                    String name = text(va.get(j), vp);
                    if (!constraints.containsKey(name)) {
                        throw fail(vp, "no constraint named \"" + name + "\" (constraints: "
                                + (constraints.isEmpty() ? "none" : String.join(", ", constraints.keySet())) + ")");
                    }
                    violates.add(name);
                }
            }
            String title = string(o, p, "title", false);
            out.add(new Scenario.Option(i, id, title == null ? id : title, effect, List.copyOf(violates),
                    string(o, p, "evidence", false), string(o, p, "revisit_when", false)));
        }
        return out;
    }

    private Scenario.Effect effect(JsonNode node, String p, Map<String, Scenario.Measured> measured) {
        ObjectNode e = object(node, p);
        keys(e, p, "category", "remove", "scale", "scale_bytes", "replace", "whatif", "add_ms", "step_scale",
                "tokens_per_step", "needs_hardware");
        if (e.isEmpty()) {
            throw fail(p, "expected at least one of remove, scale, scale_bytes, replace, whatif, add_ms, step_scale, "
                    + "tokens_per_step, needs_hardware");
        }
        String category = string(e, p, "category", false);
        if (category != null) {
            category(category, p + ".category");
        }
        List<String> targeted = new ArrayList<>();
        for (String k : List.of("remove", "scale", "scale_bytes", "replace", "whatif")) {
            if (e.has(k) && !e.get(k).isNull()) {
                targeted.add(k);
            }
        }
        if (targeted.size() > 1) {
            throw fail(p + "." + targeted.get(1), "an effect takes one of remove, scale, scale_bytes, replace and whatif, not "
                    + String.join(" and ", targeted) + " (split it into two options)");
        }
        boolean remove = false;
        if (e.has("remove") && !e.get("remove").isNull()) {
            if (!e.get("remove").isBoolean()) {
                throw fail(p + ".remove", "expected true or false, got " + kind(e.get("remove")));
            }
            remove = e.get("remove").asBoolean();
        }
        Double scale = number(e, p, "scale", false);
        if (scale != null && scale < 0) {
            throw fail(p + ".scale", "expected a factor of at least 0 (0.5 halves the time), got " + Fmt.plain(scale));
        }
        Double scaleBytes = number(e, p, "scale_bytes", false);
        if (scaleBytes != null && scaleBytes < 0) {
            throw fail(p + ".scale_bytes", "expected a factor of at least 0 (0.5: half the bytes), got " + Fmt.plain(scaleBytes));
        }
        Scenario.Replace replace = e.has("replace") && !e.get("replace").isNull()
                ? replace(e.get("replace"), p + ".replace", measured) : null;
        Double addMs = number(e, p, "add_ms", false);
        Double stepScale = number(e, p, "step_scale", false);
        if (stepScale != null && stepScale <= 0) {
            throw fail(p + ".step_scale", "expected a factor above 0, got " + Fmt.plain(stepScale));
        }
        boolean tokensUnknown = e.has("tokens_per_step") && e.get("tokens_per_step").isNull();
        Double tokens = number(e, p, "tokens_per_step", false);
        if (tokens != null && tokens <= 0) {
            throw fail(p + ".tokens_per_step", "expected tokens per sequence per step above 0 (1 without speculation), got "
                    + Fmt.plain(tokens));
        }
        Changes whatIf = e.has("whatif") && !e.get("whatif").isNull() ? whatIf(e.get("whatif"), p + ".whatif") : null;
        if (whatIf != null && category != null) {
            throw fail(p + ".category", "a whatif effect acts on what its changes name, not on a category");
        }
        return new Scenario.Effect(category, remove, scale, scaleBytes, replace, addMs, stepScale, tokens, tokensUnknown,
                string(e, p, "needs_hardware", false), whatIf);
    }

    /** The changes of a whatif effect, as {@code steptrace whatif}'s options (docs/whatif.md, "Changes"). */
    private Changes whatIf(JsonNode node, String p) {
        ObjectNode w = object(node, p);
        keys(w, p, "scale", "scale_kernels", "busbw_gbps", "launch_overhead_us", "no_straggler", "cpu_scale");
        Map<String, Double> scale = factors(w, p, "scale");
        scale.keySet().forEach(c -> category(c, p + ".scale." + c));
        Map<java.util.regex.Pattern, Double> kernels = new LinkedHashMap<>();
        for (Map.Entry<String, Double> k : factors(w, p, "scale_kernels").entrySet()) {
            try {
                kernels.put(Changes.pattern(k.getKey()), k.getValue());
            } catch (IllegalArgumentException ex) {
                throw fail(p + ".scale_kernels", "not a regular expression: \"" + k.getKey() + "\"");
            }
        }
        Map<String, Double> busbw = factors(w, p, "busbw_gbps");
        for (Map.Entry<String, Double> b : busbw.entrySet()) {
            if (!(b.getValue() > 0)) {
                throw fail(p + ".busbw_gbps." + b.getKey(), "expected a bus bandwidth above 0 GB/s, got " + Fmt.plain(b.getValue()));
            }
        }
        Double launch = number(w, p, "launch_overhead_us", false);
        if (launch != null && launch < 0) {
            throw fail(p + ".launch_overhead_us", "expected µs per launch of at least 0, got " + Fmt.plain(launch));
        }
        boolean noStraggler = false;
        if (w.has("no_straggler") && !w.get("no_straggler").isNull()) {
            if (!w.get("no_straggler").isBoolean()) {
                throw fail(p + ".no_straggler", "expected true or false, got " + kind(w.get("no_straggler")));
            }
            noStraggler = w.get("no_straggler").asBoolean();
        }
        Double cpu = number(w, p, "cpu_scale", false);
        if (cpu != null && !(cpu > 0)) {
            throw fail(p + ".cpu_scale", "expected a factor above 0, got " + Fmt.plain(cpu));
        }
        Changes c = new Changes(scale, kernels, busbw, launch, noStraggler, cpu == null ? 1.0 : cpu);
        if (c.isEmpty()) {
            throw fail(p, "expected at least one change: scale, scale_kernels, busbw_gbps, launch_overhead_us, no_straggler"
                    + " or cpu_scale");
        }
        return c;
    }

    /** A map of names to numbers of at least 0 ({@code scale: {allreduce: 0.5}}), empty when absent. */
    private Map<String, Double> factors(ObjectNode o, String p, String key) {
        Map<String, Double> out = new LinkedHashMap<>();
        if (!o.has(key) || o.get(key).isNull()) {
            return out;
        }
        ObjectNode m = object(o.get(key), p + "." + key);
        for (Iterator<String> names = m.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            Double v = number(m, p + "." + key, name, true);
            if (v < 0) {
                throw fail(p + "." + key + "." + name, "expected a number of at least 0, got " + Fmt.plain(v));
            }
            out.put(name, v);
        }
        return out;
    }

    private Scenario.Replace replace(JsonNode node, String p, Map<String, Scenario.Measured> measured) {
        ObjectNode r = object(node, p);
        keys(r, p, "calls_per_step", "by");
        Double calls = number(r, p, "calls_per_step", false);
        if (calls != null && calls <= 0) {
            throw fail(p + ".calls_per_step", "expected calls per step above 0, got " + Fmt.plain(calls));
        }
        String bp = p + ".by";
        ObjectNode by = object(required(r, p, "by"), bp);
        keys(by, bp, "what", "calls_per_step", "per_call_us");
        Double byCalls = number(by, bp, "calls_per_step", false);
        if (byCalls != null && byCalls < 0) {
            throw fail(bp + ".calls_per_step", "expected calls per step of at least 0, got " + Fmt.plain(byCalls));
        }
        JsonNode pc = required(by, bp, "per_call_us");
        Double perCall = null;
        String table = null;
        if (pc.isNumber()) {
            perCall = pc.asDouble();
            if (perCall < 0) {
                throw fail(bp + ".per_call_us", "expected a time of at least 0 µs, got " + Fmt.plain(perCall));
            }
        } else if (pc.isObject()) {
            keys((ObjectNode) pc, bp + ".per_call_us", "table");
            table = string((ObjectNode) pc, bp + ".per_call_us", "table", true);
            Scenario.Measured m = measured.get(table);
            if (!(m instanceof Scenario.Table)) {
                throw fail(bp + ".per_call_us.table", m == null
                        ? "no measured table named \"" + table + "\" (measured: "
                                + (measured.isEmpty() ? "none" : String.join(", ", measured.keySet())) + ")"
                        : "measured." + table + " is a burst timing, not a table by batch size");
            }
        } else {
            throw fail(bp + ".per_call_us", "expected a number of µs or {table: NAME} (a measured table by batch size), got "
                    + kind(pc));
        }
        return new Scenario.Replace(calls, byCalls, perCall, table, string(by, bp, "what", false));
    }

    // ---- field helpers ----

    private ScenarioException fail(String field, String message) {
        return new ScenarioException(source + ": " + field + ": " + message);
    }

    private static String join(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private ObjectNode object(JsonNode n, String path) {
        if (n == null || !n.isObject()) {
            throw path.isEmpty() ? new ScenarioException(source + ": expected a mapping (question, options, ...) at the top level, got "
                    + kind(n)) : fail(path, "expected a mapping, got " + kind(n));
        }
        return (ObjectNode) n;
    }

    private ArrayNode array(JsonNode n, String path) {
        if (n == null || !n.isArray()) {
            throw fail(path, "expected a list, got " + kind(n));
        }
        return (ArrayNode) n;
    }

    private JsonNode required(ObjectNode o, String path, String key) {
        JsonNode n = o.get(key);
        if (n == null || n.isNull()) {
            throw fail(join(path, key), "missing (required)");
        }
        return n;
    }

    private void keys(ObjectNode o, String path, String... allowed) {
        List<String> ok = List.of(allowed);
        for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!ok.contains(k)) {
                throw fail(join(path, k), "unknown field (expected one of " + String.join(", ", ok) + ")");
            }
        }
    }

    private String string(ObjectNode o, String path, String key, boolean required) {
        JsonNode n = required ? required(o, path, key) : o.get(key);
        if (n == null || n.isNull()) {
            return null;
        }
        return text(n, join(path, key));
    }

    private String text(JsonNode n, String path) {
        if (!n.isValueNode() || n.isNull()) {
            throw fail(path, "expected text, got " + kind(n));
        }
        String s = n.asText().strip();
        if (s.isEmpty()) {
            throw fail(path, "expected text, got an empty value");
        }
        return s;
    }

    private Double number(ObjectNode o, String path, String key, boolean required) {
        JsonNode n = required ? required(o, path, key) : o.get(key);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isNumber() || !Double.isFinite(n.asDouble())) {
            throw fail(join(path, key), "expected a number, got " + kind(n));
        }
        return n.asDouble();
    }

    private Integer positiveInt(ObjectNode o, String path, String key, boolean required) {
        JsonNode n = required ? required(o, path, key) : o.get(key);
        if (n == null || n.isNull()) {
            return null;
        }
        return positiveInt(n, join(path, key));
    }

    private int positiveInt(JsonNode n, String path) {
        if (!n.isIntegralNumber() || n.asLong() <= 0 || n.asLong() > Integer.MAX_VALUE) {
            throw fail(path, "expected a whole number above 0, got " + kind(n));
        }
        return n.asInt();
    }

    private void category(String spec, String path) {
        int slash = spec.indexOf('/');
        String cat = slash < 0 ? spec : spec.substring(0, slash);
        if (Category.ofId(cat).isEmpty()) {
            throw fail(path, "unknown category \"" + cat + "\" (expected one of " + Category.ids()
                    + ", optionally with /subcategory)");
        }
        if (slash >= 0 && spec.substring(slash + 1).isBlank()) {
            throw fail(path, "expected category/subcategory, got \"" + spec + "\"");
        }
    }

    /** What a value is, for messages: {@code "half"}, {@code 12}, {@code a list}, {@code nothing}. */
    private static String kind(JsonNode n) {
        if (n == null || n.isMissingNode() || n.isNull()) {
            return "nothing";
        }
        if (n.isTextual()) {
            String s = n.asText();
            return "\"" + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + "\"";
        }
        if (n.isNumber() || n.isBoolean()) {
            return n.asText();
        }
        return n.isArray() ? "a list" : n.isObject() ? "a mapping" : n.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
    }
}
