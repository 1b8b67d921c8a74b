package dev.steptrace.common;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** The data files steptrace ships beside its classes (YAML with sources), read once by the class they serve. */
public final class BundledData {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private BundledData() {}

    /** The YAML resource {@code name} beside {@code anchor}'s class, as a tree; a missing one is a broken build. */
    public static JsonNode yaml(Class<?> anchor, String name) {
        try (InputStream in = anchor.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return YAML.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read resource " + name, e);
        }
    }
}
