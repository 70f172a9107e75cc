package dev.postbox.internal.poll;

import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * How a job claims due rows of its table on one database: moves up to a limit of rows in the spec's
 * ready status, and rows in its due status whose due time has passed, to the claimed status, adding one
 * to the version, and returns them as claimed; every later write of the job names that version
 * ({@link Fence}). Each database does it its own way (one implementation per way); {@link #of} chooses
 * once per claimer from the dialect's capabilities. What varies per table is the {@link ClaimSpec}.
 *
 * @param <R> the job's record of one row
 */
public interface VersionedClaim<R> {

    /** Claims up to {@code limit} due rows; returns them as claimed, with the claimed version, in id order. */
    List<R> claim(Connection c, int limit, Instant now) throws SQLException;

    /** Whether claims must not overlap within this JVM (concurrent claimers would collide on the same rows). */
    boolean serialized();

    /** The way {@code dialect} claims the rows {@code spec} describes. */
    static <R> VersionedClaim<R> of(Dialect dialect, ClaimSpec<R, ?> spec) {
        if (!dialect.claimsWithSkipLocked()) {
            return new ConditionalVersionedClaim<>(dialect, spec);
        }
        return dialect.returnsUpdatedRows() ? new PostgresVersionedClaim<>(dialect, spec)
                : new MySqlVersionedClaim<>(dialect, spec);
    }
}
