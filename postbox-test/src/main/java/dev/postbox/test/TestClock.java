package dev.postbox.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock a test sets and advances by hand, for {@code Postbox.builder(dataSource).clock(clock)}: every time
 * Postbox writes or compares (an event's {@code next_retry_time}, a relay's {@code lock_until}, a message event's
 * stuck timeout, a compensation's times, retention's ages) is read from it, so a FAILED event becomes due when
 * the test {@linkplain #advance advances} the clock past its backoff, not after a sleep. Durations Postbox
 * measures (send and handler timeouts, poll intervals) run on {@link System#nanoTime()} and are not affected.
 * <p>
 * Time never runs by itself: {@link #instant()} answers the same instant until the test moves it. Always UTC
 * ({@link #withZone} answers a view of the same time in another zone). Thread-safe: the relay's and worker's
 * threads read it while the test moves it.
 */
public final class TestClock extends Clock {

    private final AtomicReference<Instant> now;
    private final ZoneId zone;

    private TestClock(AtomicReference<Instant> now, ZoneId zone) {
        this.now = now;
        this.zone = zone;
    }

    /** A clock standing at {@code start}. */
    public static TestClock at(Instant start) {
        return new TestClock(new AtomicReference<>(Objects.requireNonNull(start, "start")), ZoneOffset.UTC);
    }

    /**
     * A clock standing at the system clock's current time, to the millisecond (the precision Postbox stores). Use it
     * where a relay compares its clock with the database's (the Spring starter's relay does): it starts in step.
     */
    public static TestClock systemNow() {
        return at(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    }

    /** Moves the clock forward by {@code amount} (not negative); returns the new time. */
    public Instant advance(Duration amount) {
        Objects.requireNonNull(amount, "amount");
        if (amount.isNegative()) {
            throw new IllegalArgumentException("amount must not be negative (was " + amount + "); use set() to go back");
        }
        return now.updateAndGet(t -> t.plus(amount));
    }

    /**
     * Moves the clock to {@code instant} if that is later than its time; returns the clock's time afterwards. What
     * a driver uses to reach the next due time without ever moving time backwards.
     */
    public Instant advanceTo(Instant instant) {
        Objects.requireNonNull(instant, "instant");
        return now.updateAndGet(t -> instant.isAfter(t) ? instant : t);
    }

    /** Sets the clock to {@code instant}, earlier or later. */
    public void set(Instant instant) {
        now.set(Objects.requireNonNull(instant, "instant"));
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    /** A view in {@code zone} of this same clock: moving either moves both. */
    @Override
    public Clock withZone(ZoneId zone) {
        return zone.equals(this.zone) ? this : new TestClock(now, zone);
    }

    @Override
    public String toString() {
        return "TestClock[" + now.get() + "]";
    }
}
