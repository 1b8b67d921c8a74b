package dev.steptrace.ingest.kineto;

/**
 * Converts Kineto's microsecond timestamps to integer nanoseconds straight from the decimal text.
 *
 * <p>Every Kineto era writes {@code ts}/{@code dur} in microseconds: integers before 2024,
 * {@code "us.nnn"} since. Going through a double would lose nanoseconds on epoch values
 * (16 integer digits), so the digits are accumulated exactly. A fourth fractional digit and beyond
 * round half-up, matching Kineto's {@code round(ts*1000)}.
 */
public final class DecimalTime {
    /** Returned when the text is not a finite decimal number that fits in a long of nanoseconds. */
    public static final long INVALID = Long.MIN_VALUE;

    private DecimalTime() {}

    public static long microsToNanos(char[] buf, int off, int len) {
        int i = off;
        int end = off + len;
        if (i == end) {
            return INVALID;
        }
        boolean negative = false;
        if (buf[i] == '-' || buf[i] == '+') {
            negative = buf[i] == '-';
            i++;
        }
        long micros = 0;
        int intDigits = 0;
        while (i < end && buf[i] >= '0' && buf[i] <= '9') {
            if (micros > (Long.MAX_VALUE - 9) / 10) {
                return INVALID;
            }
            micros = micros * 10 + (buf[i] - '0');
            intDigits++;
            i++;
        }
        long fraction = 0;
        int fracDigits = 0;
        boolean roundUp = false;
        if (i < end && buf[i] == '.') {
            i++;
            while (i < end && buf[i] >= '0' && buf[i] <= '9') {
                if (fracDigits < 3) {
                    fraction = fraction * 10 + (buf[i] - '0');
                } else if (fracDigits == 3) {
                    roundUp = buf[i] >= '5';
                }
                fracDigits++;
                i++;
            }
        }
        if (intDigits == 0 && fracDigits == 0) {
            return INVALID;
        }
        if (i < end) {
            // Exponent notation is legal JSON though no Kineto build writes it: take the slow exact path.
            return viaBigDecimal(buf, off, len);
        }
        for (int d = fracDigits; d < 3; d++) {
            fraction *= 10;
        }
        return nanos(negative, micros, fraction, roundUp);
    }

    /**
     * Nanoseconds from the parts of a decimal number of microseconds: its integer part, its first three
     * fraction digits as thousandths, and whether the digits after them round up. {@link #INVALID} when
     * it does not fit.
     */
    static long nanos(boolean negative, long micros, long thousandths, boolean roundUp) {
        if (micros > (Long.MAX_VALUE - 1000) / 1000) {
            return INVALID;
        }
        long nanos = micros * 1000 + thousandths + (roundUp ? 1 : 0);
        return negative ? -nanos : nanos;
    }

    private static long viaBigDecimal(char[] buf, int off, int len) {
        try {
            java.math.BigDecimal nanos = new java.math.BigDecimal(buf, off, len)
                    .movePointRight(3)
                    .setScale(0, java.math.RoundingMode.HALF_UP);
            return nanos.longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            return INVALID;
        }
    }
}
