package dev.steptrace.api;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import dev.steptrace.common.Messages;
import tech.tablesaw.api.BooleanColumn;
import tech.tablesaw.api.DateColumn;
import tech.tablesaw.api.DateTimeColumn;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.InstantColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.api.TimeColumn;
import tech.tablesaw.columns.Column;
import tech.tablesaw.columns.numbers.NumberColumnFormatter;

/**
 * A DuckDB result as a Tablesaw table. Tablesaw's own JDBC reader refuses DuckDB's HUGEINT (what
 * {@code sum()} of a BIGINT returns), UBIGINT, ENUM and nested types; here every column gets a type:
 * 8- to 32-bit integers as {@code INTEGER}, 64-bit as {@code LONG}, 128-bit and unsigned 64-bit as
 * {@code LONG} when every value fits (else their exact decimal text), floating point and DECIMAL as
 * {@code DOUBLE}, dates and times as Tablesaw's date and time columns, text and ENUM as {@code STRING},
 * and anything else (lists, structs, maps, intervals, blobs) as its text.
 */
final class TableReader {
    private TableReader() {}

    /** Runs the caller's {@code sql} on {@code c}; a query DuckDB rejects is the caller's to fix. */
    static Table query(Connection c, String sql) {
        try (Statement s = c.createStatement()) {
            ResultSet rs;
            try {
                rs = s.executeQuery(sql);
            } catch (SQLException e) {
                throw new SteptraceException("query failed: " + Messages.sqlError(e.getMessage()), e);
            }
            try (rs) {
                return read(rs, "result");
            }
        } catch (SQLException e) {
            throw SteptraceException.internal("reading the query result failed: " + Messages.firstLine(e.getMessage()), e);
        }
    }

    /** Runs steptrace's own {@code sql} with parameters; any failure is internal. */
    static Table internalQuery(Connection c, String name, String sql, Object... params) {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return read(rs, name);
            }
        } catch (SQLException e) {
            throw SteptraceException.internal("reading " + name + " failed: " + Messages.firstLine(e.getMessage()), e);
        }
    }

    /**
     * Prints the table's floating-point columns with at most 4 decimals and thousands separators (Tablesaw
     * prints every digit of a double otherwise); the values themselves are untouched.
     */
    static Table pretty(Table t) {
        for (Column<?> c : t.columns()) {
            if (c instanceof DoubleColumn d) {
                d.setPrintFormatter(new NumberColumnFormatter(
                        new DecimalFormat("#,##0.####", DecimalFormatSymbols.getInstance(Locale.ROOT)), ""));
            }
        }
        return t;
    }

    static Table read(ResultSet rs, String tableName) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        int n = md.getColumnCount();
        List<List<Object>> values = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            values.add(new ArrayList<>());
        }
        while (rs.next()) {
            for (int i = 0; i < n; i++) {
                values.get(i).add(rs.getObject(i + 1));
            }
        }
        Table table = Table.create(tableName);
        Set<String> names = new HashSet<>();
        for (int i = 0; i < n; i++) {
            String name = md.getColumnLabel(i + 1);
            if (name == null || name.isEmpty()) {
                name = "column" + (i + 1);
            }
            String unique = name;
            for (int k = 2; !names.add(unique.toLowerCase(Locale.ROOT)); k++) {
                unique = name + "_" + k;
            }
            table.addColumns(column(unique, md.getColumnClassName(i + 1), values.get(i)));
        }
        return pretty(table);
    }

    private static Column<?> column(String name, String className, List<Object> values) {
        Class<?> kind = kind(className, values);
        if (kind == Integer.class) {
            IntColumn c = IntColumn.create(name);
            values.forEach(v -> {
                if (v == null) {
                    c.appendMissing();
                } else {
                    c.append(((Number) v).intValue());
                }
            });
            return c;
        }
        if (kind == Long.class) {
            LongColumn c = LongColumn.create(name);
            values.forEach(v -> {
                if (v == null) {
                    c.appendMissing();
                } else {
                    c.append(((Number) v).longValue());
                }
            });
            return c;
        }
        if (kind == Double.class) {
            DoubleColumn c = DoubleColumn.create(name);
            values.forEach(v -> {
                if (v == null) {
                    c.appendMissing();
                } else {
                    c.append(((Number) v).doubleValue());
                }
            });
            return c;
        }
        if (kind == Boolean.class) {
            BooleanColumn c = BooleanColumn.create(name);
            values.forEach(v -> {
                if (v == null) {
                    c.appendMissing();
                } else {
                    c.append((Boolean) v);
                }
            });
            return c;
        }
        if (kind == LocalDate.class) {
            DateColumn c = DateColumn.create(name);
            values.forEach(v -> c.append((LocalDate) v));
            return c;
        }
        if (kind == LocalTime.class) {
            TimeColumn c = TimeColumn.create(name);
            values.forEach(v -> c.append((LocalTime) v));
            return c;
        }
        if (kind == Timestamp.class) {
            DateTimeColumn c = DateTimeColumn.create(name);
            values.forEach(v -> c.append(v == null ? null : ((Timestamp) v).toLocalDateTime()));
            return c;
        }
        if (kind == OffsetDateTime.class) {
            InstantColumn c = InstantColumn.create(name);
            values.forEach(v -> c.append(v == null ? null
                    : v instanceof OffsetDateTime o ? o.toInstant() : ((ZonedDateTime) v).toInstant()));
            return c;
        }
        StringColumn c = StringColumn.create(name);
        values.forEach(v -> {
            if (v == null) {
                c.appendMissing();
            } else {
                c.append(String.valueOf(v));
            }
        });
        return c;
    }

    /** The Java type a column's values become, from the driver's class name and, for wide integers, the values. */
    private static Class<?> kind(String className, List<Object> values) {
        String cls = className == null ? "" : className;
        switch (cls) {
            case "java.lang.Byte", "java.lang.Short", "java.lang.Integer":
                return Integer.class;
            case "java.lang.Long":
                return Long.class;
            case "java.lang.Float", "java.lang.Double", "java.math.BigDecimal":
                return Double.class;
            case "java.lang.Boolean":
                return Boolean.class;
            case "java.time.LocalDate":
                return LocalDate.class;
            case "java.time.LocalTime":
                return LocalTime.class;
            case "java.sql.Timestamp", "java.time.LocalDateTime":
                return values.stream().allMatch(v -> v == null || v instanceof Timestamp) ? Timestamp.class : String.class;
            case "java.time.OffsetDateTime", "java.time.ZonedDateTime":
                return OffsetDateTime.class;
            case "java.math.BigInteger":
                return values.stream().allMatch(v -> v == null || fitsLong(v)) ? Long.class : String.class;
            default:
                return String.class;
        }
    }

    private static boolean fitsLong(Object v) {
        if (v instanceof BigInteger b) {
            return b.bitLength() < 64;
        }
        if (v instanceof BigDecimal d) {
            return d.scale() <= 0 && d.toBigInteger().bitLength() < 64;
        }
        return v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte;
    }
}
