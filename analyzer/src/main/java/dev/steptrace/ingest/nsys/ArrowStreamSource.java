package dev.steptrace.ingest.nsys;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.MessageMetadataResult;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An {@code nsys export --type arrow} file: Arrow IPC streams back to back, one per table, each
 * naming its table in the schema metadata key {@code table_name}.
 *
 * <p>Opening indexes the file: it reads each stream's schema message and skips over the bodies of
 * its batches (message headers only), noting where every table's stream starts. A scan then opens
 * an {@link ArrowStreamReader} at that offset, so tables can be read in any order, one record batch
 * in memory at a time.
 */
public final class ArrowStreamSource implements NsysSource {
    /** The schema metadata key that names a stream's table. */
    public static final String TABLE_NAME_KEY = "table_name";

    private final Path file;
    private final BufferAllocator allocator;
    private final Map<String, List<Long>> offsets = new LinkedHashMap<>();
    private final Map<String, Set<String>> columns = new LinkedHashMap<>();

    private ArrowStreamSource(Path file, BufferAllocator allocator) {
        this.file = file;
        this.allocator = allocator;
    }

    public static ArrowStreamSource open(Path file, BufferAllocator allocator) throws IOException {
        ArrowStreamSource s = new ArrowStreamSource(file, allocator);
        s.index();
        return s;
    }

    private void index() throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            ReadChannel in = new ReadChannel(ch);
            int stream = 0;
            while (ch.position() < size) {
                long start = ch.position();
                MessageMetadataResult schemaMessage = MessageSerializer.readMessage(in);
                if (schemaMessage == null) {
                    // A stray end-of-stream marker: nothing between it and the next stream.
                    continue;
                }
                Schema schema;
                try {
                    schema = MessageSerializer.deserializeSchema(schemaMessage.getMessage());
                } catch (RuntimeException e) {
                    throw new IOException("Arrow stream " + stream + " at byte " + start
                            + " does not start with a schema message", e);
                }
                ch.position(ch.position() + schemaMessage.getMessageBodyLength());
                String table = schema.getCustomMetadata() == null ? null : schema.getCustomMetadata().get(TABLE_NAME_KEY);
                if (table == null) {
                    throw new IOException("Arrow stream " + stream + " at byte " + start + " has no '" + TABLE_NAME_KEY
                            + "' in its schema metadata (not an nsys export)");
                }
                offsets.computeIfAbsent(table, k -> new ArrayList<>()).add(start);
                columns.computeIfAbsent(table, k -> ArrowRows.names(schema.getFields()));
                // Skip the stream's dictionary and record batches up to its end-of-stream marker.
                while (true) {
                    long at = ch.position();
                    MessageMetadataResult m = MessageSerializer.readMessage(in);
                    if (m == null) {
                        break;
                    }
                    long end = ch.position() + m.getMessageBodyLength();
                    if (end > size) {
                        throw new IOException("Arrow stream of " + table + " is cut short: a message at byte " + at
                                + " needs " + (end - size) + " bytes more than the file has");
                    }
                    ch.position(end);
                }
                stream++;
            }
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new IOException("not a readable Arrow IPC stream: " + e.getMessage(), e);
        }
    }

    @Override
    public Set<String> columns(String table) {
        return columns.getOrDefault(table, Set.of());
    }

    @Override
    public Rows scan(String table, List<Col> cols, Filter filter) throws IOException {
        List<Long> at = offsets.get(table);
        if (at == null) {
            return Rows.empty();
        }
        if (at.size() == 1) {
            return open(at.get(0), cols, filter, table);
        }
        // The same table in several streams (an export appended to): read them one after the other.
        return new Rows() {
            private int next;
            private Rows current = Rows.empty();

            @Override
            public boolean next() throws IOException {
                while (!current.next()) {
                    current.close();
                    if (next == at.size()) {
                        current = Rows.empty();
                        return false;
                    }
                    current = open(at.get(next++), cols, filter, table);
                }
                return true;
            }

            @Override
            public long getLong(int col) throws IOException {
                return current.getLong(col);
            }

            @Override
            public String getString(int col) throws IOException {
                return current.getString(col);
            }

            @Override
            public void close() throws IOException {
                current.close();
            }
        };
    }

    private Rows open(long offset, List<Col> cols, Filter filter, String table) throws IOException {
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
        try {
            ch.position(offset);
            // The reader closes the channel.
            return new ArrowRows(new ArrowStreamReader(ch, allocator), cols, filter, table);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    @Override
    public void close() {
    }
}
