package dev.steptrace.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.testing.TestData;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store's tables and views are documented where they are defined and in docs/schema.md: every table of
 * schema.sql and every view of views.sql has a comment saying what a row is, and docs/schema.md has a section
 * for each table and a row of its Views table for each view of a new store, and nothing else.
 */
class SchemaDocumentationTest {
    private static final Pattern CREATED = Pattern.compile("CREATE (?:TABLE IF NOT EXISTS|OR REPLACE VIEW) (\\w+)");

    @TempDir
    Path tmp;

    @Test
    void everyTableAndViewHasACommentWhereItIsDefined() throws IOException {
        for (String file : List.of("schema.sql", "views.sql")) {
            List<String> lines;
            try (InputStream in = Store.class.getResourceAsStream(file)) {
                lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            }
            List<String> bare = new ArrayList<>();
            String previous = "";
            int created = 0;
            for (String line : lines) {
                Matcher m = CREATED.matcher(line);
                if (m.lookingAt()) {
                    created++;
                    if (!previous.startsWith("--")) {
                        bare.add(m.group(1));
                    }
                }
                if (!line.isBlank()) {
                    previous = line.strip();
                }
            }
            assertTrue(created > 5, file + " defines its tables and views");
            assertEquals(List.of(), bare, file + ": tables and views without a comment saying what a row is");
        }
    }

    @Test
    void docsSchemaListsTheStoresTablesAndViews() throws IOException, SQLException, StoreException {
        TreeSet<String> tables = new TreeSet<>();
        TreeSet<String> views = new TreeSet<>();
        try (Store store = Store.open(tmp.resolve("s.duckdb"))) {
            tables.addAll(Sql.strings(store.connection(), "SELECT table_name FROM duckdb_tables()"
                    + " WHERE database_name = current_database() AND schema_name = 'main'"));
            views.addAll(Sql.strings(store.connection(), "SELECT view_name FROM duckdb_views()"
                    + " WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal"));
        }
        String doc = Files.readString(TestData.repoRoot().resolve("docs/schema.md"), StandardCharsets.UTF_8);
        TreeSet<String> sections = new TreeSet<>();
        Matcher m = Pattern.compile("(?m)^### `(\\w+)`$").matcher(doc);
        while (m.find()) {
            sections.add(m.group(1));
        }
        assertEquals(tables, sections, "docs/schema.md's table sections against the store's tables");
        String viewsSection = doc.substring(doc.indexOf("\n## Views\n"), doc.indexOf("\n## ", doc.indexOf("\n## Views\n") + 1));
        TreeSet<String> rows = new TreeSet<>();
        m = Pattern.compile("(?m)^\\| `(\\w+)` \\|").matcher(viewsSection);
        while (m.find()) {
            rows.add(m.group(1));
        }
        assertEquals(views, rows, "docs/schema.md's Views table against the store's views");
    }
}
