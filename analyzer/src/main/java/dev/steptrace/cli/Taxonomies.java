package dev.steptrace.cli;

import dev.steptrace.classify.Taxonomy;
import java.nio.file.Path;

/** The taxonomy a command uses: the built-in rules, with a user's file prepended when given. */
final class Taxonomies {
    private Taxonomies() {}

    /** A bad user file is a {@link dev.steptrace.classify.TaxonomyException}, which the command line prints as it is. */
    static Taxonomy load(Path userFile) {
        Taxonomy builtIn = Taxonomy.builtIn();
        return userFile == null ? builtIn : builtIn.withUserRules(userFile);
    }
}
