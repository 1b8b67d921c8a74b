package dev.steptrace.rules;

import java.util.List;
import java.util.Optional;

/**
 * What a check is, apart from how it runs: the catalogue entry of docs/warnings.md. Its id is the
 * {@code code} of the warnings it raises (report.json {@code warnings[].code}); ids never change.
 *
 * @param id          stable id, {@code [a-z][a-z0-9_]*}
 * @param severity    how much a finding limits the figures
 * @param summary     one line: what the finding says
 * @param explanation why it matters and what to do, a few sentences
 * @param thresholds  the numbers it compares against, with defaults (empty: it fires on any occurrence)
 * @param evidence    SQL to run on the store that lists what triggered it
 */
public record Rule(String id, Severity severity, String summary, String explanation, List<Threshold> thresholds,
                   String evidence) {
    public Rule {
        if (!id.matches("[a-z][a-z0-9_]*")) {
            throw new IllegalArgumentException("rule id " + id + " is not [a-z][a-z0-9_]*");
        }
        thresholds = List.copyOf(thresholds);
        evidence = evidence.strip();
    }

    /** The threshold of that name, if the rule has one. */
    public Optional<Threshold> threshold(String name) {
        return thresholds.stream().filter(t -> t.name().equals(name)).findFirst();
    }
}
