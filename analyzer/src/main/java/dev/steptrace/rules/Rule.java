package dev.steptrace.rules;

import java.util.List;
import java.util.Optional;

/**
 * What a check is, apart from how it runs: the catalogue entry of docs/warnings.md (a capture-quality
 * rule) or docs/scenarios.md (a decision memo's check). A capture-quality rule's id is the {@code code}
 * of the warnings it raises (report.json {@code warnings[].code}), a decision check's the {@code id} of
 * its results (decision.json {@code checks[].id}); ids never change.
 *
 * @param id          stable id, {@code [a-z][a-z0-9_-]*}
 * @param severity    how much a finding limits the figures
 * @param summary     one line: what the finding says (a decision check's title)
 * @param explanation why it matters and what to do, a few sentences
 * @param thresholds  the numbers it compares against, with defaults (empty: it fires on any occurrence)
 * @param evidence    SQL to run on the store that lists what triggered it; null for a decision check, whose
 *                    evidence is in the memo beside each result
 */
public record Rule(String id, Severity severity, String summary, String explanation, List<Threshold> thresholds,
                   String evidence) {
    public Rule {
        if (!id.matches("[a-z][a-z0-9_-]*")) {
            throw new IllegalArgumentException("rule id " + id + " is not [a-z][a-z0-9_-]*");
        }
        thresholds = List.copyOf(thresholds);
        evidence = evidence == null ? null : evidence.strip();
    }

    /** The threshold of that name, if the rule has one. */
    public Optional<Threshold> threshold(String name) {
        return thresholds.stream().filter(t -> t.name().equals(name)).findFirst();
    }
}
