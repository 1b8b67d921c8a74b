package dev.steptrace.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.steptrace.common.OutputFiles;
import java.io.IOException;
import java.nio.file.Path;

/**
 * report.json: the {@link BottleneckReport} in snake_case, nulls written out (a field the trace cannot
 * support is present and null), numbers as computed. docs/report.schema.json is its JSON Schema.
 */
public final class ReportJson {
    /** Shared by every steptrace JSON document (report, diff, decision), for one naming convention. */
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .build();

    private ReportJson() {}

    public static void write(BottleneckReport report, Path file) throws IOException {
        OutputFiles.write(file, out -> MAPPER.writeValue(out, report));
    }

    public static String toJson(Object value) throws IOException {
        return MAPPER.writeValueAsString(value);
    }
}
