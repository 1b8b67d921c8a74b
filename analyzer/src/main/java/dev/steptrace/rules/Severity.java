package dev.steptrace.rules;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** How much a rule's finding limits what the figures can say (docs/warnings.md, "Severity"). */
public enum Severity {
    /** Worth knowing; the figures stand as they are. */
    INFO,
    /** Some figures are approximate, cover less than the capture, or point at a problem of the workload. */
    WARNING,
    /** Some figures may be wrong or mix things up: read them only after fixing the capture. */
    SEVERE;

    /** The lower-case name report.json and the catalogue use. */
    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
