package dev.steptrace.classify;

import dev.steptrace.common.BoundedRegex;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.steptrace.common.Messages;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.IntStream;

/**
 * The ordered kernel-name rules: the built-in ones ({@code taxonomy.yaml} next to this class) with any
 * user rules prepended. The first rule that applies to the event's kind and whose pattern is found in
 * the name wins; the built-in list ends with a catch-all, so every name gets a classification.
 *
 * <p>docs/taxonomy.md describes the file format. Instances are immutable and thread-safe.
 */
public final class Taxonomy {
    /** The origin of the shipped rules. */
    public static final String BUILT_IN = "built-in taxonomy.yaml";
    /** The id of the last built-in rule, which matches everything. */
    public static final String CATCH_ALL_ID = "other.unclassified";
    /** The rule whose kernels run any collective (RCCL's ncclDevKernel_Generic): their collective comes from context. */
    public static final String GENERIC_COLLECTIVE_RULE = "comm.nccl.generic";
    /** The rule ids a generic collective kernel gets from the CPU op that launched it (docs/taxonomy.md). */
    public static final String GENERIC_ALLREDUCE_RULE = "allreduce.nccl_generic.by_cpu_op";
    public static final String GENERIC_OTHER_RULE = "comm_other.nccl_generic.by_cpu_op";

    private static final Set<String> TOP_LEVEL_FIELDS = Set.of("version", "rules");
    private static final List<String> RULE_FIELDS =
            List.of("id", "match", "kinds", "category", "subcategory", "context", "op", "within", "source", "note");
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*");
    private static final Pattern SUBCATEGORY = Pattern.compile("[A-Za-z0-9_.+-]+");

    private final List<TaxonomyRule> rules;
    /** Per rule, its pattern split for a faster search (null: the whole regex is run). */
    private final SplitPattern[] splits;
    /** Per event kind, the positions of the rules that apply to it, in order. */
    private final Map<String, int[]> rulesOfKind = new HashMap<>();
    private final String digest;

    private Taxonomy(List<TaxonomyRule> rules) {
        this.rules = List.copyOf(rules);
        this.splits = new SplitPattern[this.rules.size()];
        for (int i = 0; i < splits.length; i++) {
            splits[i] = SplitPattern.of(this.rules.get(i).match());
        }
        for (String kind : TaxonomyRule.KINDS) {
            rulesOfKind.put(kind, IntStream.range(0, this.rules.size())
                    .filter(i -> this.rules.get(i).appliesTo(kind)).toArray());
        }
        this.digest = digestOf(this.rules);
    }

    /** The shipped rules. */
    public static Taxonomy builtIn() {
        return BuiltIn.INSTANCE;
    }

    private static final class BuiltIn {
        static final Taxonomy INSTANCE = loadBuiltIn();
    }

    private static Taxonomy loadBuiltIn() {
        try (InputStream in = Taxonomy.class.getResourceAsStream("taxonomy.yaml")) {
            if (in == null) {
                throw new IllegalStateException("missing resource taxonomy.yaml");
            }
            List<TaxonomyRule> rules = parse(in.readAllBytes(), BUILT_IN, false);
            TaxonomyRule last = rules.isEmpty() ? null : rules.get(rules.size() - 1);
            if (last == null || !last.id().equals(CATCH_ALL_ID) || !last.kinds().containsAll(TaxonomyRule.KINDS)
                    || !last.matchesName("")) {
                throw new TaxonomyException(BUILT_IN + ": the last rule must be " + CATCH_ALL_ID
                        + ", matching every name of every kind");
            }
            checkDuplicates(rules, List.of(), BUILT_IN);
            return new Taxonomy(rules);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read resource taxonomy.yaml", e);
        }
    }

    /**
     * This taxonomy with the rules of {@code file} (YAML, or JSON when the name ends in {@code .json})
     * in front, so they win over the rules already here.
     *
     * @throws TaxonomyException when the file is missing, malformed or a rule is invalid; the message
     *                           names the file and, where it applies, the rule id and field
     */
    public Taxonomy withUserRules(Path file) {
        String origin = file.toString();
        byte[] bytes;
        try {
            if (Files.isDirectory(file)) {
                throw new TaxonomyException("taxonomy file " + origin + ": is a directory, not a rule file");
            }
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new TaxonomyException("taxonomy file " + origin + ": no such file");
        } catch (IOException e) {
            throw new TaxonomyException("taxonomy file " + origin + ": cannot read it: " + e.getMessage(), e);
        }
        boolean json = file.getFileName() != null
                && file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".json");
        List<TaxonomyRule> user = parse(bytes, origin, json);
        checkDuplicates(user, rules, origin);
        List<TaxonomyRule> all = new ArrayList<>(user.size() + rules.size());
        all.addAll(user);
        all.addAll(rules);
        return new Taxonomy(all);
    }

    /** The rules in the order they are tried. */
    public List<TaxonomyRule> rules() {
        return rules;
    }

    /** How many rules did not come from the built-in file. */
    public int userRuleCount() {
        return (int) rules.stream().filter(r -> !BUILT_IN.equals(r.origin())).count();
    }

    /**
     * A stable SHA-256 (hex) of what decides classifications: every rule's id, kinds, pattern, category,
     * subcategory and context, in order. Stored with each classification so rows made under other rules can be told apart.
     */
    public String digest() {
        return digest;
    }

    /**
     * Classifies one distinct name by the name alone: rules that need a context are passed over.
     *
     * @param kind {@code kernel}, {@code memcpy} or {@code memset}; {@code null} means kernel
     */
    public Classification classify(String name, String kind) {
        return firstMatch(name, kind, false).classification();
    }

    /**
     * The class of {@code name} for a kernel inside an MoE block, when a context rule decides it there:
     * the first rule that matches, context rules included, is one of them. Empty when the name's own
     * class applies in an MoE block too.
     */
    public Optional<Classification> inMoeBlock(String name, String kind) {
        TaxonomyRule r = firstMatch(name, kind, true);
        return TaxonomyRule.MOE_BLOCK.equals(r.context()) ? Optional.of(r.classification()) : Optional.empty();
    }

    /**
     * The rules that decide {@code name} by its launch's context (an enclosing op, annotation or module) before the
     * rule its name alone meets, in order, with their 0-based positions: the analysis gives an operation the class
     * of the first of them whose context its launch has, else the name's own (docs/taxonomy.md).
     */
    public List<Positioned> launchRules(String name, String kind) {
        String k = checkKind(kind);
        String n = name == null ? "" : name;
        List<Positioned> out = new ArrayList<>();
        for (int i : rulesOfKind.get(k)) {
            TaxonomyRule r = rules.get(i);
            if (r.context() != null) {
                continue;
            }
            boolean found;
            try {
                found = splits[i] != null ? splits[i].find(n) : r.matchesName(n);
            } catch (BoundedRegex.TooSlow e) {
                throw in(r, e);
            }
            if (found && r.byNameAlone()) {
                return out;
            }
            if (found) {
                out.add(new Positioned(i, r));
            }
        }
        return out;
    }

    /** A rule and its 0-based position in the rule list. */
    public record Positioned(int index, TaxonomyRule rule) {}

    /** Whether any rule decides by a launch's context: when none does, the analysis gives no class from it. */
    public boolean hasLaunchRules() {
        return rules.stream().anyMatch(TaxonomyRule::byLaunch);
    }

    /** Whether any rule needs a context: when none does, no analysis needs to look for one. */
    public boolean hasContextRules() {
        return rules.stream().anyMatch(r -> !r.byNameAlone());
    }

    private TaxonomyRule firstMatch(String name, String kind, boolean withContextRules) {
        String k = checkKind(kind);
        String n = name == null ? "" : name;
        for (int i : rulesOfKind.get(k)) {
            TaxonomyRule r = rules.get(i);
            // A launch's context is not known here: the analysis applies those rules (launchRules).
            if (r.byLaunch() || (!withContextRules && !r.byNameAlone())) {
                continue;
            }
            try {
                if (splits[i] != null ? splits[i].find(n) : r.matchesName(n)) {
                    return r;
                }
            } catch (BoundedRegex.TooSlow e) {
                throw in(r, e);
            }
        }
        throw new IllegalStateException("no rule matched " + n + " (" + k + "): the catch-all is missing");
    }

    /**
     * Which rule classifies {@code name}, and why each earlier rule did not; a context rule that matches
     * before it is the class inside an MoE block. Runs every regex as written (not split), so it also
     * serves as the reference {@link #classify} and {@link #inMoeBlock} are tested against.
     */
    public Explanation explain(String name, String kind) {
        return explain(name, kind, LaunchContext.NONE);
    }

    /**
     * As {@link #explain(String, String)}, for a kernel launched in {@code context}: a rule that decides by the
     * launch's context matches where the context has what it asks (docs/taxonomy.md, "Classes from the launching op").
     */
    public Explanation explain(String name, String kind, LaunchContext context) {
        String k = checkKind(kind);
        String n = name == null ? "" : name;
        List<Explanation.Miss> misses = new ArrayList<>();
        Explanation.Miss inMoeBlock = null;
        for (int i = 0; i < rules.size(); i++) {
            TaxonomyRule r = rules.get(i);
            if (!r.appliesTo(k)) {
                misses.add(new Explanation.Miss(i + 1, r, Explanation.Reason.OTHER_KIND));
            } else if (!matchesName(r, n)) {
                misses.add(new Explanation.Miss(i + 1, r, Explanation.Reason.NO_MATCH));
            } else if (r.byLaunch() && holds(r, context)) {
                return new Explanation(n, k, r, i + 1, misses, inMoeBlock, context);
            } else if (!r.byNameAlone()) {
                Explanation.Miss m = new Explanation.Miss(i + 1, r, Explanation.Reason.NEEDS_CONTEXT);
                misses.add(m);
                inMoeBlock = inMoeBlock == null && !r.byLaunch() ? m : inMoeBlock;
            } else {
                return new Explanation(n, k, r, i + 1, misses, inMoeBlock, context);
            }
        }
        throw new IllegalStateException("no rule matched " + n + " (" + k + "): the catch-all is missing");
    }

    private static boolean holds(TaxonomyRule r, LaunchContext context) {
        try {
            return r.launch().holds(context);
        } catch (BoundedRegex.TooSlow e) {
            throw in(r, e);
        }
    }

    private static boolean matchesName(TaxonomyRule r, String name) {
        try {
            return r.matchesName(name);
        } catch (BoundedRegex.TooSlow e) {
            throw in(r, e);
        }
    }

    /** A rule's regex that backtracks without end, named with its rule. */
    private static BoundedRegex.TooSlow in(TaxonomyRule r, BoundedRegex.TooSlow e) {
        return e.in("taxonomy rule " + r.id() + " (" + r.origin() + ")");
    }

    private static String checkKind(String kind) {
        if (kind == null) {
            return TaxonomyRule.KERNEL;
        }
        if (!TaxonomyRule.KINDS.contains(kind)) {
            throw new IllegalArgumentException("unknown event kind " + kind + " (expected one of "
                    + String.join(", ", TaxonomyRule.KINDS) + ")");
        }
        return kind;
    }

    // ---- parsing and validation ------------------------------------------------------------------

    private static ObjectMapper mapper(boolean json) {
        ObjectMapper m = json ? new ObjectMapper() : new ObjectMapper(new YAMLFactory());
        m.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        return m;
    }

    static List<TaxonomyRule> parse(byte[] bytes, String origin, boolean json) {
        String where = BUILT_IN.equals(origin) ? origin : "taxonomy file " + origin;
        JsonNode root;
        try {
            root = mapper(json).readTree(bytes);
        } catch (JsonProcessingException e) {
            throw new TaxonomyException(Messages.notParsed(where, json ? "JSON" : "YAML", e), e);
        } catch (IOException e) {
            throw new TaxonomyException(where + ": cannot read it: " + e.getMessage(), e);
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            throw new TaxonomyException(where + ": is empty (expected a 'rules' list)");
        }
        JsonNode list;
        if (root.isArray()) {
            list = root;
        } else if (root.isObject()) {
            for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (!TOP_LEVEL_FIELDS.contains(f)) {
                    throw new TaxonomyException(where + ": unknown top-level field '" + f
                            + "' (expected 'rules' and optionally 'version')");
                }
            }
            JsonNode version = root.get("version");
            if (version != null && !(version.isInt() && version.intValue() == 1)) {
                throw new TaxonomyException(where + ": unsupported version " + version + " (this steptrace reads version 1)");
            }
            list = root.get("rules");
            if (list == null || !list.isArray()) {
                throw new TaxonomyException(where + ": expected a 'rules' list");
            }
        } else {
            throw new TaxonomyException(where + ": expected a 'rules' list, found " + describe(root));
        }
        List<TaxonomyRule> rules = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            rules.add(rule(list.get(i), i + 1, origin, where));
        }
        return rules;
    }

    private static TaxonomyRule rule(JsonNode node, int number, String origin, String where) {
        String atNumber = where + ": rule #" + number;
        if (!node.isObject()) {
            throw new TaxonomyException(atNumber + ": expected a mapping with id, match, category, subcategory, found "
                    + describe(node));
        }
        JsonNode idNode = node.get("id");
        if (idNode == null || !idNode.isTextual() || idNode.asText().isBlank()) {
            throw new TaxonomyException(atNumber + ": field 'id' is missing or not a string");
        }
        String id = idNode.asText();
        final String at = where + ": rule '" + id + "'";
        if (!ID.matcher(id).matches()) {
            throw new TaxonomyException(at + ": field 'id': use letters, digits, '_' or '-', in dot-separated parts");
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!RULE_FIELDS.contains(f)) {
                throw new TaxonomyException(at + ": unknown field '" + f + "' (allowed: "
                        + String.join(", ", RULE_FIELDS) + ")");
            }
        }
        String match = text(node, "match", at, true);
        Pattern pattern;
        try {
            pattern = Pattern.compile(match);
        } catch (PatternSyntaxException e) {
            throw new TaxonomyException(at + ": field 'match': bad regex: " + e.getDescription()
                    + (e.getIndex() >= 0 ? " near index " + e.getIndex() : "") + " in " + match, e);
        }
        String categoryId = text(node, "category", at, true);
        Category category = Category.ofId(categoryId).orElseThrow(() -> new TaxonomyException(
                at + ": field 'category': unknown category '" + categoryId + "' (expected one of " + Category.ids() + ")"));
        String subcategory = text(node, "subcategory", at, true);
        if (!SUBCATEGORY.matcher(subcategory).matches()) {
            throw new TaxonomyException(at + ": field 'subcategory': use letters, digits, '_', '.', '+' or '-'");
        }
        List<String> kinds = kinds(node.get("kinds"), at);
        boolean builtIn = BUILT_IN.equals(origin);
        String source = text(node, "source", at, builtIn);
        if (source == null) {
            source = "user rule file " + origin;
        }
        String note = text(node, "note", at, false);
        String context = text(node, "context", at, false);
        if (context != null && !TaxonomyRule.MOE_BLOCK.equals(context)) {
            throw new TaxonomyException(at + ": field 'context': unknown context '" + context + "' (the one context is "
                    + TaxonomyRule.MOE_BLOCK + ")");
        }
        String op = text(node, "op", at, false);
        String within = text(node, "within", at, false);
        LaunchMatch launch = null;
        if (op != null || within != null) {
            if (context != null) {
                throw new TaxonomyException(at + ": field 'context': a rule with 'op' or 'within' takes no other context");
            }
            launch = new LaunchMatch(op, contextPattern(op, "op", at), within, contextPattern(within, "within", at));
        }
        return new TaxonomyRule(id, match, pattern, kinds, category, subcategory, context, launch, source, note, origin);
    }

    private static Pattern contextPattern(String regex, String field, String at) {
        if (regex == null) {
            return null;
        }
        if (regex.isBlank()) {
            throw new TaxonomyException(at + ": field '" + field + "' is empty");
        }
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new TaxonomyException(at + ": field '" + field + "': bad regex: " + e.getDescription()
                    + (e.getIndex() >= 0 ? " near index " + e.getIndex() : "") + " in " + regex, e);
        }
    }

    private static String text(JsonNode node, String field, String at, boolean required) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            if (required) {
                throw new TaxonomyException(at + ": field '" + field + "' is missing");
            }
            return null;
        }
        if (!v.isTextual()) {
            throw new TaxonomyException(at + ": field '" + field + "' must be a string, found " + describe(v)
                    + ("match".equals(field) ? " (quote the pattern)" : ""));
        }
        String s = v.asText();
        if (required && s.isBlank() && !"match".equals(field)) {
            throw new TaxonomyException(at + ": field '" + field + "' is empty");
        }
        return s;
    }

    private static List<String> kinds(JsonNode v, String at) {
        if (v == null || v.isNull()) {
            return TaxonomyRule.DEFAULT_KINDS;
        }
        List<String> kinds = new ArrayList<>();
        if (v.isTextual()) {
            kinds.add(v.asText());
        } else if (v.isArray() && v.size() > 0) {
            for (JsonNode k : v) {
                if (!k.isTextual()) {
                    throw new TaxonomyException(at + ": field 'kinds': expected names of event kinds, found " + describe(k));
                }
                kinds.add(k.asText());
            }
        } else {
            throw new TaxonomyException(at + ": field 'kinds': expected a list of " + String.join(", ", TaxonomyRule.KINDS));
        }
        for (String k : kinds) {
            if (!TaxonomyRule.KINDS.contains(k)) {
                throw new TaxonomyException(at + ": field 'kinds': unknown kind '" + k + "' (expected "
                        + String.join(", ", TaxonomyRule.KINDS) + ")");
            }
        }
        return Collections.unmodifiableList(kinds);
    }

    private static void checkDuplicates(List<TaxonomyRule> added, List<TaxonomyRule> existing, String origin) {
        String where = BUILT_IN.equals(origin) ? origin : "taxonomy file " + origin;
        Map<String, TaxonomyRule> seen = new HashMap<>();
        for (TaxonomyRule r : existing) {
            seen.put(r.id(), r);
        }
        Map<String, Boolean> inFile = new HashMap<>();
        for (TaxonomyRule r : added) {
            if (inFile.put(r.id(), Boolean.TRUE) != null) {
                throw new TaxonomyException(where + ": rule '" + r.id() + "': duplicate id (an id names one rule)");
            }
            TaxonomyRule other = seen.get(r.id());
            if (other != null) {
                throw new TaxonomyException(where + ": rule '" + r.id() + "': duplicate id, already used by a rule of "
                        + (BUILT_IN.equals(other.origin()) ? "the built-in taxonomy" : other.origin())
                        + " (give your rule its own id; rules you add win anyway because they come first)");
            }
        }
    }

    private static String describe(JsonNode n) {
        if (n.isArray()) {
            return "a list";
        }
        if (n.isObject()) {
            return "a mapping";
        }
        if (n.isNumber()) {
            return "the number " + n.asText();
        }
        if (n.isBoolean()) {
            return "the boolean " + n.asText();
        }
        return "'" + n.asText() + "'";
    }

    private static String digestOf(List<TaxonomyRule> rules) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (TaxonomyRule r : rules) {
                // Unit and record separators cannot occur in YAML scalars we accept as ids and kinds,
                // so the encoding is unambiguous.
                String s = r.id() + '\u001f' + String.join(",", r.kinds()) + '\u001f' + r.match() + '\u001f'
                        + r.category().id() + '\u001f' + r.subcategory()
                        + (r.context() == null ? "" : '\u001f' + r.context())
                        + (r.launch() == null ? "" : '\u001f' + "op=" + r.launch().op() + '\u001f' + "within="
                                + r.launch().within()) + '\u001e';
                md.update(s.getBytes(StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }
}
