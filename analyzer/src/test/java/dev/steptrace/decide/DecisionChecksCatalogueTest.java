package dev.steptrace.decide;

import dev.steptrace.testsupport.RuleCatalogue;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** docs/scenarios.md ("Checks") lists exactly the registered decision checks, each as the check says. */
class DecisionChecksCatalogueTest {
    @Test
    void theCatalogueIsTheRegisteredChecks() throws IOException {
        RuleCatalogue.assertDocumented("docs/scenarios.md",
                "<!-- checks: kept equal to the registered checks by DecisionChecksCatalogueTest -->",
                DecisionChecks.catalogue(), "Thresholds: none of its own.");
    }
}
