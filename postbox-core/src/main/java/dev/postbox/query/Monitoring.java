package dev.postbox.query;

import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.ValidationException;
import dev.postbox.compensation.CompensationStatus;
import dev.postbox.internal.Binds;
import dev.postbox.internal.CatalogSize;
import dev.postbox.internal.Settings;
import dev.postbox.retention.RetentionTable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The small, bounded reads behind the meters and the Actuator endpoint that are not backlogs: each Postbox
 * table's size as the catalog estimates it, the relays and workers whose heartbeat is recent, and the
 * compensations that wait for another attempt ({@code postbox.queries().monitoring()}). Every read takes a
 * connection of the Postbox data source for one statement or two and reads an index or the catalog only.
 * Thread-safe.
 */
public final class Monitoring {

    /** Most instance rows {@link #instances} reads (the console's limit too). */
    public static final int MAX_INSTANCES = 500;

    /**
     * A table's size as the database's catalog estimates it, reading no row of it.
     *
     * @param rows  estimated rows, or -1 where the catalog keeps no estimate
     * @param bytes heap, indexes and TOAST together, or -1 where the catalog keeps none (H2 in memory)
     */
    public record TableSize(long rows, long bytes) {
    }

    /**
     * A relay or message worker as its heartbeat row shows it; times are the database's.
     *
     * @param role     {@code relay} or {@code worker}
     * @param lastSeen its last heartbeat
     * @param stopped  when it stopped cleanly, or null
     * @param alive    its last heartbeat is within the asked window (by the database's clock) and it did not stop
     */
    public record Instance(String instance, String role, String host, Instant started, Instant lastSeen,
                           Instant stopped, boolean alive) {
    }

    private final Settings s;
    private final String nowSql;
    private final String instancesSql;
    private final String retryableSql;

    Monitoring(Settings settings) {
        this.s = settings;
        var t = settings.tables();
        this.nowSql = "SELECT " + settings.dialect().currentTimeSql() + " AS db_now";
        this.instancesSql = "SELECT instance, role, host, started_time, last_seen_time, stopped_time FROM "
                + t.relayInstance() + " WHERE last_seen_time >= ? ORDER BY instance LIMIT " + MAX_INSTANCES;
        this.retryableSql = "SELECT COUNT(*) FROM " + t.compensationLog() + " WHERE compensate_status = '"
                + CompensationStatus.FAILED.name() + "' AND biz_type = ? AND action_type = ? AND attempts < ?";
    }

    /** The catalog's estimate of {@code table}'s size (the online table, not its archive). */
    public TableSize tableSize(RetentionTable table) {
        Objects.requireNonNull(table, "table");
        if (s.dialect().tableSizeSql() == null) {
            return new TableSize(-1, -1);
        }
        String name = table.table(s.tables());
        CatalogSize size = read("the catalog's size of " + name, c -> CatalogSize.read(c, s.dialect(), name));
        return new TableSize(size.rows(), size.bytes());
    }

    /**
     * Relays and workers seen within the last day (at most {@value #MAX_INSTANCES}), by instance id; each
     * {@link Instance#alive() alive} when seen within {@code aliveWithin} by the database's clock, which wrote the
     * heartbeats.
     *
     * @param aliveWithin positive, e.g. {@code OperationsConfig.DEFAULT_ALIVE_WITHIN} (60 s)
     */
    public List<Instance> instances(Duration aliveWithin) {
        if (aliveWithin == null || aliveWithin.isNegative() || aliveWithin.isZero()) {
            throw new ValidationException("aliveWithin", "must be positive, was " + aliveWithin);
        }
        return read("the relay and worker heartbeats", c -> {
            Instant now;
            try (PreparedStatement ps = c.prepareStatement(nowSql); ResultSet rs = ps.executeQuery()) {
                rs.next();
                now = s.dialect().readTime(rs, "db_now");
            }
            Instant aliveAfter = now.minus(aliveWithin);
            List<Instance> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(instancesSql)) {
                Binds.bind(ps, s.dialect(), List.of(now.minus(Duration.ofDays(1))));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Instant lastSeen = s.dialect().readTime(rs, "last_seen_time");
                        Instant stopped = s.dialect().readTime(rs, "stopped_time");
                        out.add(new Instance(rs.getString("instance"), rs.getString("role"), rs.getString("host"),
                                s.dialect().readTime(rs, "started_time"), lastSeen, stopped,
                                stopped == null && lastSeen != null && !lastSeen.isBefore(aliveAfter)));
                    }
                }
            }
            return out;
        });
    }

    /**
     * Compensations of {@code bizType}/{@code actionType} that failed and have attempts left
     * ({@code attempts < maxAttempts}): the next runs of the job try them again if its scan still finds their keys.
     */
    public long retryableCompensations(String bizType, String actionType, int maxAttempts) {
        Objects.requireNonNull(bizType, "bizType");
        Objects.requireNonNull(actionType, "actionType");
        return read("the retryable compensations of " + bizType + "/" + actionType, c -> {
            try (PreparedStatement ps = c.prepareStatement(retryableSql)) {
                ps.setString(1, bizType);
                ps.setString(2, actionType);
                ps.setInt(3, maxAttempts);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getLong(1) : 0L;
                }
            }
        });
    }

    @FunctionalInterface
    private interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private <T> T read(String what, Work<T> work) {
        try (Connection c = s.dataSource().getConnection()) {
            return work.run(c);
        } catch (SQLException e) {
            throw new PostboxSqlException(what, e);
        }
    }
}
