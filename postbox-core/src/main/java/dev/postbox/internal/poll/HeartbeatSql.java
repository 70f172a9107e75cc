package dev.postbox.internal.poll;

import dev.postbox.internal.WindowStats;
import dev.postbox.jdbc.Dialect;
import dev.postbox.jdbc.TableNames;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The statements of a heartbeat on the instance and stats tables (schema version 8), each run in the
 * heartbeat's own transaction. The instance row is written update-first: an UPDATE by primary key, and an
 * INSERT only when it changed nothing (the first heartbeat of a new instance id, or after the row was
 * removed), so that one statement serves every heartbeat but the first, on every database alike.
 */
final class HeartbeatSql {

    /** Most old rows one cleanup deletes from each table. */
    static final int CLEANUP_LIMIT = 1_000;

    private final Dialect dialect;
    private final String now;
    private final String start;
    private final String seen;
    private final String stop;
    private final String insert;
    private final String stats;
    private final String oldStats;
    private final String oldInstances;
    private final String deleteInstance;

    HeartbeatSql(Dialect dialect, TableNames tables) {
        this.dialect = dialect;
        String instances = tables.relayInstance();
        this.now = "SELECT " + dialect.currentTimeSql() + " AS db_now";
        this.start = """
                UPDATE %s SET role = ?, host = ?, detail = ?, started_time = ?, last_seen_time = ?, stopped_time = NULL\
                 WHERE instance = ?""".formatted(instances);
        this.seen = "UPDATE %s SET last_seen_time = ? WHERE instance = ?".formatted(instances);
        this.stop = "UPDATE %s SET last_seen_time = ?, stopped_time = ? WHERE instance = ?".formatted(instances);
        this.insert = """
                INSERT INTO %s (instance, role, host, detail, started_time, last_seen_time, stopped_time)\
                 VALUES (?, ?, ?, ?, ?, ?, ?)""".formatted(instances);
        this.stats = """
                INSERT INTO %s (instance, window_start, window_end, succeeded, failed, dead, latency_sum_ms,\
                 latency_max_ms, latency_hist) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""".formatted(tables.relayStats());
        this.oldStats = dialect.deleteBatch(tables.relayStats(), "window_start < ?", "window_start");
        this.oldInstances = "SELECT instance FROM %s WHERE last_seen_time < ? LIMIT %d".formatted(instances, CLEANUP_LIMIT);
        this.deleteInstance = "DELETE FROM %s WHERE instance = ? AND last_seen_time < ?".formatted(instances);
    }

    /** Who an instance row describes. */
    record Identity(String instance, String role, String host, String detail) {
    }

    /** The database's clock, read in the transaction of {@code c}. */
    Instant databaseNow(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(now); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return dialect.readTime(rs, "db_now");
        }
    }

    /** The first heartbeat: the row as a new start (a row left by an earlier run of the same id is taken over). */
    void started(Connection c, Identity id, Instant startedAt, Instant at) throws SQLException {
        int n;
        try (PreparedStatement ps = c.prepareStatement(start)) {
            ps.setString(1, id.role());
            ps.setString(2, id.host());
            ps.setString(3, id.detail());
            dialect.bindTime(ps, 4, startedAt);
            dialect.bindTime(ps, 5, at);
            ps.setString(6, id.instance());
            n = ps.executeUpdate();
        }
        if (n == 0) {
            insert(c, id, startedAt, at, null);
        }
    }

    /** A later heartbeat: last seen now. */
    void seen(Connection c, Identity id, Instant startedAt, Instant at) throws SQLException {
        if (update(c, seen, id, at, null) == 0) {
            insert(c, id, startedAt, at, null);
        }
    }

    /** The last heartbeat of a clean close: last seen and stopped now. */
    void stopped(Connection c, Identity id, Instant startedAt, Instant at) throws SQLException {
        if (update(c, stop, id, at, at) == 0) {
            insert(c, id, startedAt, at, at);
        }
    }

    private int update(Connection c, String sql, Identity id, Instant at, Instant stoppedAt) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            dialect.bindTime(ps, i++, at);
            if (stoppedAt != null) {
                dialect.bindTime(ps, i++, stoppedAt);
            }
            ps.setString(i, id.instance());
            return ps.executeUpdate();
        }
    }

    private void insert(Connection c, Identity id, Instant startedAt, Instant at, Instant stoppedAt) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(insert)) {
            ps.setString(1, id.instance());
            ps.setString(2, id.role());
            ps.setString(3, id.host());
            ps.setString(4, id.detail());
            dialect.bindTime(ps, 5, startedAt);
            dialect.bindTime(ps, 6, at);
            dialect.bindTime(ps, 7, stoppedAt);
            ps.executeUpdate();
        }
    }

    /** One stats row for the window {@code [from, to]}. */
    void window(Connection c, String instance, Instant from, Instant to, WindowStats.Snapshot s) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(stats)) {
            ps.setString(1, instance);
            dialect.bindTime(ps, 2, from);
            dialect.bindTime(ps, 3, to);
            ps.setLong(4, s.succeeded());
            ps.setLong(5, s.failed());
            ps.setLong(6, s.dead());
            ps.setLong(7, s.latencySumMillis());
            ps.setLong(8, s.latencyMaxMillis());
            ps.setString(9, s.histogramText());
            ps.executeUpdate();
        }
    }

    /** Deletes up to {@link #CLEANUP_LIMIT} stats rows whose window started before {@code cutoff}; returns how many. */
    int deleteStatsBefore(Connection c, Instant cutoff) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(oldStats)) {
            dialect.bindTime(ps, 1, cutoff);
            ps.setInt(2, CLEANUP_LIMIT);
            return ps.executeUpdate();
        }
    }

    /** Deletes up to {@link #CLEANUP_LIMIT} instance rows last seen before {@code cutoff}; returns how many. */
    int deleteInstancesBefore(Connection c, Instant cutoff) throws SQLException {
        List<String> old = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(oldInstances)) {
            dialect.bindTime(ps, 1, cutoff);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    old.add(rs.getString(1));
                }
            }
        }
        if (old.isEmpty()) {
            return 0;
        }
        int deleted = 0;
        try (PreparedStatement ps = c.prepareStatement(deleteInstance)) {
            for (String instance : old) {
                ps.setString(1, instance);
                dialect.bindTime(ps, 2, cutoff);
                ps.addBatch();
            }
            for (int n : ps.executeBatch()) {
                deleted += Math.max(n, 0);
            }
        }
        return deleted;
    }
}
