package dev.steptrace.quality;

import dev.steptrace.testsupport.RuleCatalogue;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** docs/warnings.md lists exactly the registered rules, each as the rule says. */
class WarningsCatalogueTest {
    @Test
    void theCatalogueIsTheRegisteredRules() throws IOException {
        RuleCatalogue.assertDocumented("docs/warnings.md",
                "<!-- rules: kept equal to the registered rules by WarningsCatalogueTest -->",
                CaptureRules.catalogue(), "Thresholds: none (any occurrence is reported).");
    }
}
