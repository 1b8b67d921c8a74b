package dev.steptrace.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.Set;

/** Validates steptrace's JSON documents against the schemas published in docs/. */
public final class JsonSchemas {
    private JsonSchemas() {}

    /** Fails the test with every violation when {@code document} does not match docs/{@code schemaFile}. */
    public static void assertValid(String schemaFile, JsonNode document) throws Exception {
        JsonSchema schema;
        try (InputStream in = Files.newInputStream(TestData.repoRoot().resolve("docs").resolve(schemaFile))) {
            schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in);
        }
        Set<ValidationMessage> errors = schema.validate(document);
        assertEquals(Set.of(), errors, "violations of docs/" + schemaFile);
    }
}
