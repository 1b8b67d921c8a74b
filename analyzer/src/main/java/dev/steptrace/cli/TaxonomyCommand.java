package dev.steptrace.cli;

import dev.steptrace.common.InputException;
import dev.steptrace.classify.Explanation;
import dev.steptrace.classify.LaunchContext;
import dev.steptrace.classify.TaxonomyRule;
import dev.steptrace.classify.Taxonomy;
import dev.steptrace.classify.TaxonomyException;
import dev.steptrace.common.BoundedRegex;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "taxonomy", mixinStandardHelpOptions = true,
        description = {"List the kernel classification rules, or say which rule classifies a kernel name.",
                "The rules are listed in the order they are tried (first match wins); with --explain, the rule "
                        + "that classifies the name is named, and why no earlier rule did. docs/taxonomy.md describes the "
                        + "categories and the rule file format."})
public final class TaxonomyCommand implements Callable<Integer> {
    /** Event kinds, spelled as in rule files. */
    enum Kind { kernel, memcpy, memset }

    @Option(names = "--explain", paramLabel = "KERNEL_NAME",
            description = "A kernel (or memcpy/memset) name, as the trace prints it: show the rule that matches it.")
    String explain;

    @Option(names = "--kind", paramLabel = "KIND", defaultValue = "kernel",
            description = "The event kind of the --explain name: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    Kind kind;

    @Option(names = "--op", paramLabel = "OP",
            description = "With --explain: a CPU op around the kernel's launch (e.g. nccl:all_to_all, aten::mm); repeat for"
                    + " each enclosing op. Rules with 'op:' match against these.")
    List<String> ops = new ArrayList<>();

    @Option(names = "--within", paramLabel = "NAME",
            description = "With --explain: a user annotation or module around the kernel's launch (e.g. 'nn.Module:"
                    + " FusedMoE_0'); repeat for each. Rules with 'within:' match against these.")
    List<String> within = new ArrayList<>();

    @Option(names = "--taxonomy", paramLabel = "FILE",
            description = "A YAML (or .json) rule file whose rules are tried before the built-in ones.")
    Path taxonomyFile;

    @Option(names = "--debug", description = "Print stack traces of failures.")
    boolean debug;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        Taxonomy taxonomy = Taxonomies.load(taxonomyFile);
        PrintWriter out = spec.commandLine().getOut();
        if (explain == null && !(ops.isEmpty() && within.isEmpty())) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--op and --within go with --explain");
        }
        if (explain == null) {
            printRules(out, taxonomy, taxonomyFile);
        } else {
            try {
                printExplanation(out, taxonomy.explain(explain, kind.name(), new LaunchContext(ops, within)));
            } catch (BoundedRegex.TooSlow e) {
                throw new InputException(e.getMessage(), e);
            }
        }
        out.flush();
        return Main.OK;
    }

    private static void printRules(PrintWriter out, Taxonomy taxonomy, Path file) {
        List<TaxonomyRule> rules = taxonomy.rules();
        int user = taxonomy.userRuleCount();
        out.printf(Locale.ROOT, "%d rules, tried in order, first match wins%s; digest %s%n", rules.size(),
                user > 0 ? " (" + user + " from " + file + ", then " + (rules.size() - user) + " built-in)" : "",
                taxonomy.digest());
        int idWidth = "id".length();
        int subWidth = "subcategory".length();
        for (TaxonomyRule r : rules) {
            idWidth = Math.max(idWidth, r.id().length());
            subWidth = Math.max(subWidth, r.subcategory().length());
        }
        String format = "%3s  %-" + idWidth + "s  %-10s  %-" + subWidth + "s  %-7s  %-9s  %s%n";
        out.printf(Locale.ROOT, format, "#", "id", "category", "subcategory", "kinds", "context", "pattern");
        for (int i = 0; i < rules.size(); i++) {
            TaxonomyRule r = rules.get(i);
            out.printf(Locale.ROOT, format, i + 1, r.id(), r.category().id(), r.subcategory(), kinds(r),
                    context(r), r.match().isEmpty() ? "(any name)" : r.match());
        }
    }

    private static void printExplanation(PrintWriter out, Explanation e) {
        TaxonomyRule r = e.matched();
        out.printf(Locale.ROOT, "name:        %s%n", e.name());
        out.printf(Locale.ROOT, "kind:        %s%n", e.kind());
        if (!e.context().isEmpty()) {
            out.printf(Locale.ROOT, "context:     %s%n", describe(e.context()));
        }
        out.printf(Locale.ROOT, "matched:     rule %d %s%s%n", e.index(), r.id(),
                r.byLaunch() ? " (by context: " + r.launch().describe() + ")" : "");
        out.printf(Locale.ROOT, "category:    %s / %s  (%s)%n", r.category().id(), r.subcategory(), r.category().label());
        out.printf(Locale.ROOT, "pattern:     %s%n", r.match().isEmpty() ? "(any name)" : r.match());
        out.printf(Locale.ROOT, "source:      %s%n", r.source());
        if (r.note() != null && !r.note().isBlank()) {
            out.printf(Locale.ROOT, "note:        %s%n", r.note());
        }
        if (!Taxonomy.BUILT_IN.equals(r.origin())) {
            out.printf(Locale.ROOT, "from:        %s%n", r.origin());
        }
        if (e.inMoeBlock() != null) {
            TaxonomyRule c = e.inMoeBlock().rule();
            out.printf(Locale.ROOT, "in an MoE block: rule %d %s: %s / %s  (%s); the analysis applies it to a kernel"
                    + " whose next GEMM on its stream, in its step, is an MoE GEMM%n", e.inMoeBlock().index(), c.id(),
                    c.category().id(), c.subcategory(), c.category().label());
        }
        for (Explanation.Miss m : e.launchRules()) {
            TaxonomyRule c = m.rule();
            out.printf(Locale.ROOT, "by context:  rule %d %s: %s / %s  (%s) for a kernel launched %s%n", m.index(), c.id(),
                    c.category().id(), c.subcategory(), c.category().label(), c.launch().describe());
        }
        if (e.earlier().isEmpty()) {
            out.println("earlier rules: none (it is the first rule)");
            return;
        }
        out.printf(Locale.ROOT, "earlier rules that did not match (%d):%n", e.earlier().size());
        int idWidth = 0;
        for (Explanation.Miss m : e.earlier()) {
            idWidth = Math.max(idWidth, m.rule().id().length());
        }
        for (Explanation.Miss m : e.earlier()) {
            out.printf(Locale.ROOT, "  %3d  %-" + idWidth + "s  %s%n", m.index(), m.rule().id(),
                    m.reason().describe(m.rule(), e.kind()));
        }
    }

    private static String describe(LaunchContext c) {
        List<String> parts = new ArrayList<>();
        c.ops().forEach(o -> parts.add("op '" + o + "'"));
        c.within().forEach(w -> parts.add("within '" + w + "'"));
        return String.join(", ", parts);
    }

    private static String context(TaxonomyRule r) {
        if (r.byLaunch()) {
            return (r.launch().op() != null ? "op" : "") + (r.launch().op() != null && r.launch().within() != null ? "+" : "")
                    + (r.launch().within() != null ? "within" : "");
        }
        return r.byNameAlone() ? "-" : r.context();
    }

    private static String kinds(TaxonomyRule r) {
        return r.kinds().equals(TaxonomyRule.KINDS) ? "all" : String.join(",", r.kinds());
    }
}
