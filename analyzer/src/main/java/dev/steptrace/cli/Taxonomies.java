package dev.steptrace.cli;

import dev.steptrace.classify.Taxonomy;
import dev.steptrace.classify.TaxonomyException;
import java.nio.file.Path;

/** The taxonomy a command uses: the built-in rules, with a user's file prepended when given. */
final class Taxonomies {
    private Taxonomies() {}

    static Taxonomy load(Path userFile) {
        try {
            Taxonomy builtIn = Taxonomy.builtIn();
            return userFile == null ? builtIn : builtIn.withUserRules(userFile);
        } catch (TaxonomyException e) {
            throw new UserError(e.getMessage(), e);
        }
    }
}
