package dev.steptrace.decide;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Finds a scenario by {@code --scenario NAME_OR_FILE}: an existing file (YAML, or JSON by its
 * {@code .json} extension), else a bundled scenario of that name (resources under {@value #RESOURCE_PATH}).
 */
public final class ScenarioLoader {
    public static final String RESOURCE_PATH = "/dev/steptrace/decide/scenarios/";
    /** The scenarios shipped with steptrace. */
    public static final List<String> BUNDLED = List.of("pcie-allreduce-tax", "nvlink-tp-allreduce", "host-bound-decode", "straggler");

    private ScenarioLoader() {}

    public static Scenario load(String nameOrFile) {
        Path file = Path.of(nameOrFile);
        if (Files.isRegularFile(file)) {
            return file(file, nameOrFile);
        }
        if (BUNDLED.contains(nameOrFile)) {
            return bundled(nameOrFile);
        }
        if (Files.exists(file)) {
            throw new ScenarioException(nameOrFile + ": not a file");
        }
        boolean looksLikeFile = nameOrFile.contains("/") || nameOrFile.contains(java.io.File.separator)
                || nameOrFile.toLowerCase(Locale.ROOT).matches(".*\\.(ya?ml|json)$");
        throw new ScenarioException(looksLikeFile
                ? nameOrFile + ": no such scenario file"
                : "no scenario file or bundled scenario named \"" + nameOrFile + "\" (bundled: " + String.join(", ", BUNDLED) + ")");
    }

    /** A bundled scenario by name. */
    public static Scenario bundled(String name) {
        String label = name + " (bundled)";
        try (InputStream in = ScenarioLoader.class.getResourceAsStream(RESOURCE_PATH + name + ".yaml")) {
            if (in == null) {
                throw new ScenarioException("no bundled scenario named \"" + name + "\" (bundled: " + String.join(", ", BUNDLED) + ")");
            }
            Scenario s = ScenarioParser.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), label, false);
            return s.id() == null ? withId(s, name) : s;
        } catch (IOException e) {
            throw new ScenarioException(label + ": cannot read: " + e.getMessage(), e);
        }
    }

    static Scenario file(Path file, String label) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (MalformedInputException e) {
            throw new ScenarioException(label + ": not UTF-8 text", e);
        } catch (IOException e) {
            throw new ScenarioException(label + ": cannot read: " + e.getMessage(), e);
        }
        boolean json = file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".json");
        Scenario s = ScenarioParser.parse(text, label, json);
        if (s.id() != null) {
            return s;
        }
        String name = file.getFileName().toString().replaceFirst("\\.(?i)(ya?ml|json)$", "");
        return withId(s, name);
    }

    private static Scenario withId(Scenario s, String id) {
        return new Scenario(id, s.title(), s.source(), s.question(), s.hardware(), s.constraints(), s.measured(), s.options());
    }
}
