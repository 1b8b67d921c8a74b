package dev.steptrace.classify;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Finds {@code ../shared} (beside the project root), which developers and CI have but a bare checkout may not. */
final class SharedTraces {
    private SharedTraces() {}

    /** The shared directory, looked for beside the project root (tests run in the analyzer module). */
    static Optional<Path> dir() {
        Path p = Path.of("").toAbsolutePath();
        for (int up = 0; up < 3 && p != null; up++, p = p.getParent()) {
            if (Files.exists(p.resolve("steptrace")) && Files.isDirectory(p.resolve("analyzer"))) {
                Path shared = p.resolveSibling("shared");
                return Files.isDirectory(shared) ? Optional.of(shared) : Optional.empty();
            }
        }
        return Optional.empty();
    }
}
