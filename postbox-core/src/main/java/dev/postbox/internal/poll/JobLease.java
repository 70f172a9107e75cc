package dev.postbox.internal.poll;

import dev.postbox.common.ValidationException;
import dev.postbox.internal.Check;
import dev.postbox.jdbc.Dialect;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A named lease that one owner at a time holds across processes, so that a job (a retention sweep, an
 * archiver) runs in one place only. One row per job in the lease table (schema version 6,
 * {@code TableNames.jobLease()}).
 *
 * <p>Every expiry is decided by the <b>database's</b> clock ({@link Dialect#currentTimeSql()}, read in the
 * same transaction as the write), never by the JVM's: two instances whose clocks disagree by minutes
 * still agree on whether a lease has expired, so they can never both take it. The JVM's
 * {@link System#nanoTime()} serves only {@link #held()}: the caller's own deadline, counted from before
 * the database read its time and shortened by a safety margin, so that it ends before the database's.
 *
 * <p>Taking is a fenced update ({@code owner IS NULL OR owner = me OR lease_until < now}); a missing row
 * is inserted already held, guarded by the primary key (never a read-then-write): of concurrent creators
 * exactly one inserts, the others see the duplicate and answer false. The update runs first and the
 * insert only when it changed nothing, so no transaction upgrades the shared lock MySQL takes on a
 * duplicate key to an exclusive one (two such upgrades would deadlock).
 *
 * <p>Each call is one short transaction on {@code pool}, which must not be auto-commit and should be READ
 * COMMITTED (a pool from {@link Pools#own}); with REPEATABLE READ, MySQL's gap locks on a missing row can
 * make two concurrent creators deadlock. The owner names one process (or one instance of the job): two
 * instances with the same owner share the lease. Thread-safe.
 */
public final class JobLease {

    /** Longest job name and owner, as the columns hold them. */
    public static final int MAX_NAME_LENGTH = 128;
    /** Shortest lease. */
    public static final Duration MIN_TTL = Duration.ofSeconds(1);
    /** Longest lease. */
    public static final Duration MAX_TTL = Duration.ofHours(1);
    /** Largest safety margin {@link #held()} keeps before the lease's end (otherwise a tenth of the ttl). */
    public static final Duration MAX_MARGIN = Duration.ofSeconds(5);

    /** Who holds a lease, and until when by the database's clock. */
    public record Holder(String owner, Instant until) {
    }

    private final Dialect dialect;
    private final DataSource pool;
    private final String jobName;
    private final String owner;
    private final Duration ttl;
    private final long heldNanos;
    private final String what;
    private final String now;
    private final String take;
    private final String create;
    private final boolean createSkips;
    private final String renew;
    private final String release;
    private final String holder;
    private final String[] duplicateKeys;

    /** Guarded by this: whether the last take or renewal succeeded, and until which nanoTime it may be believed. */
    private boolean heldByLastCall;
    private long heldUntilNanos;

    /**
     * @param table   the lease table, e.g. {@code TableNames.jobLease()}
     * @param jobName the lease's name: not blank, at most {@value #MAX_NAME_LENGTH} characters
     * @param owner   who takes it (one process, or one instance of the job): as {@code jobName}
     * @param ttl     how long a take or renewal holds it: {@link #MIN_TTL} .. {@link #MAX_TTL}
     * @throws ValidationException naming {@code jobName}, {@code owner} or {@code ttl}
     */
    public JobLease(Dialect dialect, DataSource pool, String table, String jobName, String owner, Duration ttl) {
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.pool = Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(table, "table");
        this.jobName = Check.key(dialect, "jobName", jobName, MAX_NAME_LENGTH);
        this.owner = Check.key(dialect, "owner", owner, MAX_NAME_LENGTH);
        this.ttl = checkTtl(ttl);
        Duration margin = ttl.dividedBy(10);
        this.heldNanos = ttl.minus(margin.compareTo(MAX_MARGIN) > 0 ? MAX_MARGIN : margin).toNanos();
        this.what = "lease '" + jobName + "' for '" + owner + "'";
        this.now = "SELECT " + dialect.currentTimeSql() + " AS db_now";
        // acquired_time first: MySQL evaluates SET left to right, later assignments seeing the new owner
        this.take = """
                UPDATE %s SET acquired_time = CASE WHEN owner = ? AND lease_until >= ? THEN acquired_time ELSE ? END,
                    owner = ?, lease_until = ?, renewed_time = ?, version = version + 1, update_time = ?
                WHERE job_name = ? AND (owner IS NULL OR owner = ? OR lease_until < ?)""".formatted(table);
        String tail = dialect.skipDuplicatesReturning("job_name", "job_name");
        this.createSkips = tail != null;
        this.create = "INSERT INTO %s (job_name, owner, lease_until, acquired_time, renewed_time, version, update_time)"
                .formatted(table) + " VALUES (?, ?, ?, ?, ?, 0, ?)" + (createSkips ? tail : "");
        this.renew = """
                UPDATE %s SET lease_until = ?, renewed_time = ?, version = version + 1, update_time = ?
                WHERE job_name = ? AND owner = ? AND lease_until >= ?""".formatted(table);
        this.release = """
                UPDATE %s SET owner = NULL, lease_until = NULL, version = version + 1, update_time = %s
                WHERE job_name = ? AND owner = ?""".formatted(table, dialect.currentTimeSql());
        this.holder = """
                SELECT owner, lease_until FROM %s
                WHERE job_name = ? AND owner IS NOT NULL AND lease_until >= %s""".formatted(table, dialect.currentTimeSql());
        // PostgreSQL and H2 name the table (or its "<table>_pk") in the message, MariaDB only "PRIMARY";
        // the table has no other unique key, so either is this key
        this.duplicateKeys = new String[] {table, "PRIMARY"};
    }

    private static Duration checkTtl(Duration ttl) {
        if (ttl == null) {
            throw new ValidationException("ttl", "is required (" + MIN_TTL + " .. " + MAX_TTL + ")");
        }
        if (ttl.compareTo(MIN_TTL) < 0 || ttl.compareTo(MAX_TTL) > 0) {
            throw new ValidationException("ttl", "must be between " + MIN_TTL + " and " + MAX_TTL + " (was " + ttl + ")");
        }
        return ttl;
    }

    /**
     * Takes the lease if it is free, expired or already this owner's (then it is renewed), creating its row
     * if missing. False if another owner holds it unexpired; never an exception for losing a race.
     */
    public boolean acquire() {
        long sent = System.nanoTime();
        boolean taken = Transactions.inTransaction(pool, "taking the " + what, c -> {
            Instant dbNow = databaseNow(c);
            Instant until = dbNow.plus(ttl);
            try (PreparedStatement ps = c.prepareStatement(take)) {
                ps.setString(1, owner);
                dialect.bindTime(ps, 2, dbNow);
                dialect.bindTime(ps, 3, dbNow);
                ps.setString(4, owner);
                dialect.bindTime(ps, 5, until);
                dialect.bindTime(ps, 6, dbNow);
                dialect.bindTime(ps, 7, dbNow);
                ps.setString(8, jobName);
                ps.setString(9, owner);
                dialect.bindTime(ps, 10, dbNow);
                if (ps.executeUpdate() == 1) {
                    return true;
                }
            }
            return create(c, dbNow, until);
        });
        return remember(taken, sent);
    }

    /** Inserts the missing row, held by this owner; false if it exists (another took or created it). */
    private boolean create(Connection c, Instant dbNow, Instant until) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(create)) {
            ps.setString(1, jobName);
            ps.setString(2, owner);
            dialect.bindTime(ps, 3, until);
            dialect.bindTime(ps, 4, dbNow);
            dialect.bindTime(ps, 5, dbNow);
            dialect.bindTime(ps, 6, dbNow);
            if (createSkips) {
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next();
                }
            }
            try {
                return ps.executeUpdate() == 1;
            } catch (SQLException e) {
                for (String key : duplicateKeys) {
                    if (dialect.isDuplicateKey(e, key)) {
                        return false;
                    }
                }
                throw e;
            }
        }
    }

    /**
     * Extends the lease by the ttl from now, only while this owner still holds it unexpired. False if it
     * was lost (expired, taken over, released, or never taken); then {@link #held()} is false too.
     */
    public boolean renew() {
        long sent = System.nanoTime();
        boolean renewed = Transactions.inTransaction(pool, "renewing the " + what, c -> {
            Instant dbNow = databaseNow(c);
            try (PreparedStatement ps = c.prepareStatement(renew)) {
                dialect.bindTime(ps, 1, dbNow.plus(ttl));
                dialect.bindTime(ps, 2, dbNow);
                dialect.bindTime(ps, 3, dbNow);
                ps.setString(4, jobName);
                ps.setString(5, owner);
                dialect.bindTime(ps, 6, dbNow);
                return ps.executeUpdate() == 1;
            }
        });
        return remember(renewed, sent);
    }

    /** Gives the lease up if this owner holds it (even expired); changes nothing otherwise. */
    public void release() {
        synchronized (this) {
            heldByLastCall = false;
        }
        Transactions.inTransaction(pool, "releasing the " + what, c -> {
            try (PreparedStatement ps = c.prepareStatement(release)) {
                ps.setString(1, jobName);
                ps.setString(2, owner);
                return ps.executeUpdate();
            }
        });
    }

    /**
     * Whether the last {@link #acquire()} or {@link #renew()} succeeded and its lease has not run out,
     * counted on this JVM from before that call read the database's time, less a safety margin (a tenth of
     * the ttl, at most {@link #MAX_MARGIN}): false a little before the database lets another owner take it.
     * No SQL.
     */
    public synchronized boolean held() {
        return heldByLastCall && System.nanoTime() - heldUntilNanos < 0;
    }

    /** Who holds the lease now and until when, by the database's clock; empty if it is free or expired. */
    public Optional<Holder> holder() {
        return Transactions.inTransaction(pool, "reading the " + what, c -> {
            try (PreparedStatement ps = c.prepareStatement(holder)) {
                ps.setString(1, jobName);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(new Holder(rs.getString("owner"), dialect.readTime(rs, "lease_until")))
                            : Optional.<Holder>empty();
                }
            }
        });
    }

    /** The lease's name. */
    public String jobName() {
        return jobName;
    }

    /** Who takes it through this instance. */
    public String owner() {
        return owner;
    }

    private Instant databaseNow(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(now); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return dialect.readTime(rs, "db_now");
        }
    }

    private synchronized boolean remember(boolean held, long sent) {
        heldByLastCall = held;
        heldUntilNanos = sent + heldNanos;
        return held;
    }

    @Override
    public String toString() {
        return "JobLease[" + jobName + ", owner=" + owner + ", ttl=" + ttl + "]";
    }
}
