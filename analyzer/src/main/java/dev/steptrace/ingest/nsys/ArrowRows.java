package dev.steptrace.ingest.nsys;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Rows over the record batches of an {@link ArrowReader}: an Arrow IPC stream, or DuckDB's Arrow
 * export of a Parquet scan. Integers of any width and signedness read as {@code long} (unsigned
 * 64-bit as their bit pattern, unsigned 32-bit zero-extended), floating point truncates, text is
 * UTF-8; dictionary-encoded columns are looked up in their dictionary. One batch is in memory at a
 * time.
 */
final class ArrowRows implements Rows {
    private interface LongGetter {
        long get(int row);
    }

    private interface TextGetter {
        String get(int row);
    }

    private final ArrowReader reader;
    private final AutoCloseable[] alsoClose;
    private final List<NsysSource.Col> cols;
    private final NsysSource.Filter filter;
    private final String table;
    private final LongGetter[] longs;
    private final TextGetter[] texts;
    private LongGetter filterGetter;
    private int rowCount;
    private int row = -1;
    private boolean done;

    /**
     * @param alsoClose closed after the reader (the source of its data)
     */
    ArrowRows(ArrowReader reader, List<NsysSource.Col> cols, NsysSource.Filter filter, String table,
              AutoCloseable... alsoClose) {
        this.reader = reader;
        this.cols = cols;
        this.filter = filter;
        this.table = table;
        this.alsoClose = alsoClose;
        this.longs = new LongGetter[cols.size()];
        this.texts = new TextGetter[cols.size()];
    }

    @Override
    public boolean next() throws IOException {
        while (true) {
            if (done) {
                return false;
            }
            if (++row >= rowCount) {
                if (!loadBatch()) {
                    done = true;
                    return false;
                }
                continue;
            }
            if (filterGetter == null || matches(filterGetter.get(row))) {
                return true;
            }
        }
    }

    private boolean matches(long v) {
        for (long want : filter.values()) {
            if (v == want) {
                return true;
            }
        }
        return false;
    }

    private boolean loadBatch() throws IOException {
        do {
            if (!reader.loadNextBatch()) {
                return false;
            }
        } while (reader.getVectorSchemaRoot().getRowCount() == 0);
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        rowCount = root.getRowCount();
        row = 0;
        Map<Long, Dictionary> dictionaries = reader.getDictionaryVectors();
        for (int i = 0; i < cols.size(); i++) {
            NsysSource.Col col = cols.get(i);
            FieldVector v = vector(root, col.name());
            longs[i] = null;
            texts[i] = null;
            if (col.isPacked()) {
                longs[i] = packedGetter(root, col, dictionaries);
                continue;
            }
            if (v == null) {
                continue;
            }
            if (col.text()) {
                texts[i] = textGetter(v, dictionaries);
            } else {
                longs[i] = longGetter(v, dictionaries);
            }
        }
        filterGetter = null;
        if (filter != null) {
            FieldVector v = vector(root, filter.column());
            if (v == null) {
                return false;
            }
            filterGetter = longGetter(v, dictionaries);
        }
        // A first row may not match the filter: next() checks it.
        row = -1;
        return true;
    }

    /** A packed column from its parts' vectors (see {@link NsysSource.Col#packed}); null when a part is absent. */
    private LongGetter packedGetter(VectorSchemaRoot root, NsysSource.Col col, Map<Long, Dictionary> dictionaries)
            throws IOException {
        int n = col.parts().size();
        LongGetter[] parts = new LongGetter[n];
        for (int p = 0; p < n; p++) {
            FieldVector v = vector(root, col.parts().get(p));
            if (v == null) {
                return null;
            }
            parts[p] = longGetter(v, dictionaries);
        }
        int[] bits = col.bits();
        return r -> {
            long value = 0;
            int shift = 0;
            for (int p = 0; p < n; p++) {
                long x = parts[p].get(r);
                if (x == NULL || x < 0 || (x >>> bits[p]) != 0) {
                    return NULL;
                }
                value |= x << shift;
                shift += bits[p];
            }
            return value;
        };
    }

    private static FieldVector vector(VectorSchemaRoot root, String name) {
        for (FieldVector v : root.getFieldVectors()) {
            if (v.getName().equals(name)) {
                return v;
            }
        }
        return null;
    }

    private LongGetter longGetter(FieldVector v, Map<Long, Dictionary> dictionaries) throws IOException {
        DictionaryEncoding enc = v.getField().getDictionary();
        if (enc != null) {
            LongGetter index = plainLong(v);
            LongGetter values = plainLong(dictionary(enc, dictionaries));
            return r -> {
                long i = index.get(r);
                return i == NULL ? NULL : values.get((int) i);
            };
        }
        return plainLong(v);
    }

    private LongGetter plainLong(ValueVector v) throws IOException {
        if (v instanceof BigIntVector b) {
            return r -> b.isNull(r) ? NULL : b.get(r);
        }
        if (v instanceof IntVector b) {
            return r -> b.isNull(r) ? NULL : b.get(r);
        }
        if (v instanceof UInt8Vector b) {
            return r -> b.isNull(r) ? NULL : b.get(r);
        }
        if (v instanceof UInt4Vector b) {
            return r -> b.isNull(r) ? NULL : Integer.toUnsignedLong(b.get(r));
        }
        if (v instanceof BaseIntVector b) {
            // 8- and 16-bit, signed or unsigned: getValueAsLong zero-extends the unsigned ones.
            return r -> v.isNull(r) ? NULL : b.getValueAsLong(r);
        }
        if (v instanceof BitVector b) {
            return r -> b.isNull(r) ? NULL : b.get(r);
        }
        if (v instanceof FloatingPointVector f) {
            return r -> v.isNull(r) ? NULL : (long) f.getValueAsDouble(r);
        }
        throw new IOException(table + "." + v.getName() + ": expected an integer column, found "
                + v.getField().getType());
    }

    private TextGetter textGetter(FieldVector v, Map<Long, Dictionary> dictionaries) throws IOException {
        DictionaryEncoding enc = v.getField().getDictionary();
        if (enc != null) {
            LongGetter index = plainLong(v);
            TextGetter values = plainText(dictionary(enc, dictionaries));
            return r -> {
                long i = index.get(r);
                return i == NULL ? null : values.get((int) i);
            };
        }
        return plainText(v);
    }

    private TextGetter plainText(ValueVector v) {
        if (v instanceof VariableWidthFieldVector t) {
            return r -> t.isNull(r) ? null : new String(t.get(r), StandardCharsets.UTF_8);
        }
        // Numbers asked for as text (metadata tables whose values some versions type as numbers).
        return r -> {
            Object o = v.getObject(r);
            return o == null ? null : o.toString();
        };
    }

    private ValueVector dictionary(DictionaryEncoding enc, Map<Long, Dictionary> dictionaries) throws IOException {
        Dictionary d = dictionaries.get(enc.getId());
        if (d == null) {
            throw new IOException(table + ": dictionary " + enc.getId() + " is missing from the stream");
        }
        return d.getVector();
    }

    @Override
    public long getLong(int col) {
        LongGetter g = longs[col];
        return g == null ? NULL : g.get(row);
    }

    @Override
    public String getString(int col) {
        TextGetter g = texts[col];
        return g == null ? null : g.get(row);
    }

    @Override
    public void close() throws IOException {
        IOException failure = null;
        try {
            reader.close();
        } catch (IOException e) {
            failure = e;
        }
        for (AutoCloseable c : alsoClose) {
            try {
                c.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IOException("closing " + table + ": " + e.getMessage(), e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** The field names of a schema, for {@link NsysSource#columns}. */
    static java.util.Set<String> names(List<Field> fields) {
        java.util.Set<String> s = new java.util.LinkedHashSet<>();
        for (Field f : fields) {
            s.add(f.getName());
        }
        return s;
    }
}
