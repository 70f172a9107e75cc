package dev.postbox.internal;

import java.time.Duration;
import java.time.Instant;

/**
 * Time arithmetic that saturates at {@link Instant#MIN} and {@link Instant#MAX} instead of throwing, so a
 * caller's huge {@link Duration} (a retry "never", {@code Duration.ofSeconds(Long.MAX_VALUE)}) ends as the
 * latest time a column holds: the dialect's time binding clamps it ({@code Dialect#storableTime}).
 */
public final class Instants {

    private Instants() {
    }

    /** {@code t + d}, or {@link Instant#MAX} / {@link Instant#MIN} where that is out of range. */
    public static Instant plus(Instant t, Duration d) {
        try {
            return t.plus(d);
        } catch (ArithmeticException | java.time.DateTimeException e) {
            return d.isNegative() ? Instant.MIN : Instant.MAX;
        }
    }

    /** {@code t - d}, saturating like {@link #plus}. */
    public static Instant minus(Instant t, Duration d) {
        try {
            return t.minus(d);
        } catch (ArithmeticException | java.time.DateTimeException e) {
            return d.isNegative() ? Instant.MAX : Instant.MIN;
        }
    }
}
