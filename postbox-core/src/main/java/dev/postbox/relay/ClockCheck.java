package dev.postbox.relay;

import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * Measures the relay clock's offset against the database's, at the first claim and then every
 * {@link RelayDefaults#CLOCK_CHECK_INTERVAL}: the database's time is read between two readings of the
 * relay's clock, and the offset is taken against their midpoint (the error is at most half the round
 * trip, which is added to the bound). Leases and retry times are written and judged by each relay's own
 * clock, so a relay whose clock runs ahead would take over leases that are still live by everyone
 * else's: above the bound the relay must not take over others' leases (it still publishes new and due
 * events). Touched by the claiming thread only (claims are serialized by the cycle lock).
 */
final class ClockCheck {

    /** Used for the takeover cutoff while the clock is not trusted: no lease expired before it. */
    static final Instant NO_TAKEOVER = Instant.parse("2000-01-01T00:00:00Z");

    private final String sql;
    private final Dialect dialect;
    private final Duration bound;
    private final boolean enabled;
    private long lastCheck;
    private boolean checked;
    private volatile Duration offset = Duration.ZERO;
    private volatile boolean trusted = true;

    /** @param bound the largest offset trusted; null disables the check (the relay's clock is trusted as is) */
    ClockCheck(Dialect dialect, Duration bound) {
        this.dialect = dialect;
        this.bound = bound;
        this.enabled = bound != null;
        this.sql = "SELECT %s AS db_now".formatted(dialect.currentTimeSql());
    }

    boolean due() {
        return enabled && (!checked || System.nanoTime() - lastCheck >= RelayDefaults.CLOCK_CHECK_INTERVAL.toNanos());
    }

    /**
     * Measures the offset on {@code c}; returns true when the verdict changed (trusted or not). A failed
     * measurement keeps the previous verdict and is retried at the next claim.
     */
    boolean check(Connection c, Supplier<Instant> relayClock) throws SQLException {
        Instant before = relayClock.get();
        long t0 = System.nanoTime();
        Instant db;
        try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            db = dialect.readTime(rs, "db_now");
        }
        long roundTrip = System.nanoTime() - t0;
        Instant after = relayClock.get();
        Instant mid = before.plus(Duration.between(before, after).dividedBy(2));
        Duration measured = Duration.between(mid, db); // positive: the database is ahead of the relay
        checked = true;
        lastCheck = System.nanoTime();
        offset = measured;
        boolean ok = measured.abs().compareTo(bound.plusNanos(roundTrip / 2)) <= 0;
        boolean changed = ok != trusted;
        trusted = ok;
        return changed;
    }

    /** Whether the relay's clock may judge other relays' leases. */
    boolean trusted() {
        return trusted;
    }

    /** The last measured offset of the database's clock against the relay's (positive: the database is ahead). */
    Duration offset() {
        return offset;
    }

    Duration bound() {
        return bound;
    }
}
