package dev.steptrace.roofline;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.steptrace.common.Messages;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/** Reading the roofline's YAML files (device peaks, model files) with one-line errors that name the file. */
final class YamlFiles {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private YamlFiles() {}

    /** The file's document as a tree; {@code what} names the kind of file in messages. */
    static JsonNode read(Path file, String what) {
        String origin = what + " " + file;
        byte[] bytes;
        try {
            if (Files.isDirectory(file)) {
                throw new RooflineFileException(origin + ": is a directory");
            }
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new RooflineFileException(origin + ": no such file");
        } catch (IOException e) {
            throw new RooflineFileException(origin + ": cannot read it: " + e.getMessage(), e);
        }
        return parse(bytes, origin);
    }

    static JsonNode parse(byte[] bytes, String origin) {
        try {
            JsonNode root = YAML.readTree(bytes);
            if (root == null || !root.isObject()) {
                throw new RooflineFileException(origin + ": expected a mapping at the top");
            }
            return root;
        } catch (JsonProcessingException e) {
            throw new RooflineFileException(Messages.notParsed(origin, "YAML", e), e);
        } catch (IOException e) {
            throw new RooflineFileException(origin + ": " + e.getMessage(), e);
        }
    }

    /** Fails on a key of {@code node} outside {@code allowed}: a misspelt key must not pass silently. */
    static void onlyKeys(JsonNode node, Set<String> allowed, String where) {
        List<String> unknown = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!allowed.contains(k)) {
                unknown.add(k);
            }
        }
        if (!unknown.isEmpty()) {
            throw new RooflineFileException(where + ": unknown key " + String.join(", ", unknown)
                    + " (expected " + String.join(", ", allowed.stream().sorted().toList()) + ")");
        }
    }

    /** A positive number, or null when absent. */
    static Double positive(JsonNode node, String key, String where) {
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isNumber() || !(v.asDouble() > 0) || Double.isInfinite(v.asDouble())) {
            throw new RooflineFileException(where + ": " + key + " must be a positive number, not " + v);
        }
        return v.asDouble();
    }

    /** A text value, or null when absent. */
    static String text(JsonNode node, String key, String where) {
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual() && !v.isNumber()) {
            throw new RooflineFileException(where + ": " + key + " must be text");
        }
        return v.asText();
    }

    static String required(JsonNode node, String key, String where) {
        String v = text(node, key, where);
        if (v == null || v.isBlank()) {
            throw new RooflineFileException(where + ": " + key + " is missing");
        }
        return v;
    }
}
