package dev.postbox.operations;

import dev.postbox.internal.Settings;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.query.Backlog;
import dev.postbox.query.Queries;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Reads the {@link Overview}, and keeps it for {@link OperationsConfig#overviewTtl()}: one caller refreshes it
 * while the others get the value before (no herd of identical reads when many screens refresh at once); only the
 * very first read makes callers wait. Every statement reads an index and is bounded: the backlogs (a count over the
 * status index of the unfinished and dead rows), the last hour of heartbeat stats (by window start, at most
 * {@value #MAX_STATS_ROWS} rows), the instances (at most {@value #MAX_INSTANCES}), the leases held (PUBLISHING rows,
 * at most {@value #MAX_LEASES}), the job leases, the takeovers among the newest {@value #MAX_ATTEMPTS} attempts of
 * the last hour, the blocked aggregates (up to {@link Overview#BLOCKED_CAP}).
 */
final class OverviewReader {

    static final int MAX_STATS_ROWS = 20_000;
    static final int MAX_INSTANCES = 500;
    static final int MAX_LEASES = 100_000;
    static final int MAX_ATTEMPTS = 20_000;
    static final String LEASE_EXPIRED = "LEASE_EXPIRED";

    private record Cached(Overview value, Instant expires) {
    }

    private final Settings s;
    private final OperationsConfig config;
    private final Queries queries;
    private final Blocking blocking;
    private final ReentrantLock refreshing = new ReentrantLock();
    private volatile Cached cached;

    final String statsSql;
    final String instancesSql;
    final String leasesSql;
    final String jobsSql;
    final String takeoversSql;

    OverviewReader(Settings settings, OperationsConfig config, Queries queries, Blocking blocking) {
        this.s = settings;
        this.config = config;
        this.queries = queries;
        this.blocking = blocking;
        var t = settings.tables();
        this.statsSql = "SELECT instance, window_start, succeeded, failed, dead, latency_max_ms, latency_hist FROM "
                + t.relayStats() + " WHERE window_start >= ? ORDER BY window_start LIMIT " + MAX_STATS_ROWS;
        this.instancesSql = "SELECT instance, role, host, detail, started_time, last_seen_time, stopped_time FROM "
                + t.relayInstance() + " WHERE last_seen_time >= ? ORDER BY instance LIMIT " + MAX_INSTANCES;
        this.leasesSql = "SELECT locked_by, COUNT(*) FROM (SELECT locked_by FROM " + t.outbox() + " WHERE publish_status = "
                + OutboxStatus.PUBLISHING.code() + " AND deleted = 0 LIMIT " + MAX_LEASES + ") held GROUP BY locked_by";
        this.jobsSql = "SELECT job_name, owner, lease_until FROM " + t.jobLease()
                + " WHERE owner IS NOT NULL ORDER BY job_name LIMIT " + MAX_INSTANCES;
        this.takeoversSql = "SELECT COUNT(*) FROM (SELECT outcome FROM " + t.eventAttempt() + " WHERE create_time >= ?"
                + " ORDER BY create_time DESC LIMIT " + MAX_ATTEMPTS + ") recent WHERE outcome = '" + LEASE_EXPIRED + "'";
    }

    Overview get() {
        Cached c = cached;
        Instant now = s.clock().instant();
        if (c != null && now.isBefore(c.expires())) {
            return c.value();
        }
        if (c != null) {
            if (!refreshing.tryLock()) {
                return c.value();
            }
        } else {
            refreshing.lock();
        }
        try {
            c = cached;
            now = s.clock().instant();
            if (c != null && now.isBefore(c.expires())) {
                return c.value();
            }
            Overview fresh = read();
            cached = new Cached(fresh, s.clock().instant().plus(config.overviewTtl()));
            return fresh;
        } finally {
            refreshing.unlock();
        }
    }

    private Overview read() {
        Backlog outbox = queries.outbox().backlog();
        Backlog messages = queries.messages().backlog();
        Instant now = s.now();
        Instant hourAgo = now.minus(Duration.ofHours(1));
        long blocked = blocking.count(Overview.BLOCKED_CAP);
        return Sql.read(s, "operations overview", c -> {
            List<Overview.Instance> instances = instances(c, now);
            Map<String, String> roles = new HashMap<>();
            instances.forEach(i -> roles.put(i.instance(), i.role()));
            List<Overview.Minute> lastHour = lastHour(c, now, roles);
            long takeovers = Sql.first(c, s, takeoversSql, List.of(hourAgo), rs -> rs.getLong(1));
            return new Overview(s.clock().instant(), outbox, messages, lastHour, instances, blocked,
                    problems(outbox, messages, instances, blocked, takeovers));
        });
    }

    /** The sixty minutes up to now, oldest first, each with what the stats rows starting in it counted. */
    private List<Overview.Minute> lastHour(Connection c, Instant now, Map<String, String> roles) throws SQLException {
        Instant first = now.truncatedTo(ChronoUnit.MINUTES).minus(Duration.ofMinutes(59));
        record Acc(long[] n, LatencyHistogram h) {
        }
        TreeMap<Instant, Acc> minutes = new TreeMap<>();
        for (int i = 0; i < 60; i++) {
            minutes.put(first.plus(Duration.ofMinutes(i)), new Acc(new long[4], new LatencyHistogram()));
        }
        Sql.list(c, s, statsSql, List.of(first), rs -> {
            Acc a = minutes.get(s.dialect().readTime(rs, "window_start").truncatedTo(ChronoUnit.MINUTES));
            if (a != null) {
                boolean worker = "worker".equals(roles.get(rs.getString("instance")));
                a.n()[worker ? 1 : 0] += rs.getLong("succeeded");
                a.n()[2] += rs.getLong("failed");
                a.n()[3] += rs.getLong("dead");
                a.h().add(rs.getString("latency_hist"), rs.getLong("latency_max_ms"));
            }
            return null;
        });
        List<Overview.Minute> out = new ArrayList<>(60);
        minutes.forEach((start, a) -> out.add(new Overview.Minute(start, a.n()[0], a.n()[1], a.n()[2], a.n()[3],
                a.h().percentile(0.5), a.h().percentile(0.99), a.h().max())));
        return out;
    }

    /** Relays and workers seen in the last day with the leases they hold, live ones first; owners of job leases too. */
    private List<Overview.Instance> instances(Connection c, Instant now) throws SQLException {
        Map<String, Long> leases = new HashMap<>();
        Sql.list(c, s, leasesSql, List.of(), rs -> leases.put(String.valueOf(rs.getString(1)), rs.getLong(2)));
        Map<String, List<String>> jobs = new LinkedHashMap<>();
        Sql.list(c, s, jobsSql, List.of(), rs -> {
            Instant until = s.dialect().readTime(rs, "lease_until");
            if (until != null && until.isAfter(now)) {
                jobs.computeIfAbsent(rs.getString("owner"), k -> new ArrayList<>()).add(rs.getString("job_name"));
            }
            return null;
        });
        Instant aliveAfter = now.minus(config.aliveWithin());
        List<Overview.Instance> out = new ArrayList<>(Sql.list(c, s, instancesSql, List.of(now.minus(Duration.ofDays(1))),
                rs -> {
                    String id = rs.getString("instance");
                    Instant lastSeen = s.dialect().readTime(rs, "last_seen_time");
                    Instant stopped = s.dialect().readTime(rs, "stopped_time");
                    return new Overview.Instance(id, rs.getString("role"), rs.getString("host"), rs.getString("detail"),
                            s.dialect().readTime(rs, "started_time"), lastSeen, stopped,
                            stopped == null && !lastSeen.isBefore(aliveAfter), leases.getOrDefault(id, 0L),
                            jobs.getOrDefault(id, List.of()));
                }));
        for (Overview.Instance i : out) {
            jobs.remove(i.instance());
            leases.remove(i.instance());
        }
        jobs.forEach((owner, names) -> out.add(new Overview.Instance(owner, "job", null, "holds job leases", null, null,
                null, true, leases.getOrDefault(owner, 0L), names)));
        leases.keySet().removeAll(jobs.keySet());
        // a relay that holds leases but never wrote a heartbeat row (a version before heartbeats): shown, not alive
        leases.forEach((owner, held) -> out.add(new Overview.Instance(owner, "relay", null, "holds leases; no heartbeat",
                null, null, null, false, held, List.of())));
        out.sort(Comparator.comparing((Overview.Instance i) -> !i.alive()).thenComparing(Overview.Instance::instance));
        return out;
    }

    private List<Overview.Problem> problems(Backlog outbox, Backlog messages, List<Overview.Instance> instances,
                                            long blocked, long takeovers) {
        List<Overview.Problem> problems = new ArrayList<>();
        boolean relayAlive = instances.stream().anyMatch(i -> i.alive() && "relay".equals(i.role()));
        if (outbox.unfinished() > 0 && !relayAlive) {
            problems.add(new Overview.Problem(Overview.Severity.CRITICAL, "NO_LIVE_RELAY", "no relay sent a heartbeat"
                    + " within " + human(config.aliveWithin()) + " and the outbox has " + outbox.unfinished()
                    + " unfinished events: nothing publishes them"));
        }
        if (outbox.dead() + messages.dead() > 0) {
            problems.add(new Overview.Problem(Overview.Severity.WARNING, "DEAD_EVENTS", outbox.dead() + " outbox and "
                    + messages.dead() + " message events are DEAD: a person must retry or cancel them"));
        }
        if (blocked > 0) {
            problems.add(new Overview.Problem(Overview.Severity.WARNING, "BLOCKED_AGGREGATES", (blocked >= Overview.BLOCKED_CAP
                    ? "at least " : "") + blocked + " aggregates are blocked by a DEAD or FAILED first event: their"
                    + " later events wait"));
        }
        if (takeovers > 0) {
            problems.add(new Overview.Problem(Overview.Severity.WARNING, "LEASES_TAKEN_OVER", takeovers + " leases were"
                    + " taken over in the last hour: a relay stopped while it was publishing"));
        }
        oldest("outbox", outbox, problems);
        oldest("message", messages, problems);
        problems.sort(Comparator.comparing(Overview.Problem::severity));
        return problems;
    }

    private void oldest(String what, Backlog b, List<Overview.Problem> problems) {
        b.oldestUnfinishedAge().filter(age -> age.compareTo(config.oldestPendingThreshold()) > 0).ifPresent(age ->
                problems.add(new Overview.Problem(Overview.Severity.WARNING, "OLDEST_PENDING", "the oldest unfinished "
                        + what + " event has waited " + human(age) + " (threshold " + human(config.oldestPendingThreshold())
                        + ")")));
    }

    static String human(Duration d) {
        long seconds = d.getSeconds();
        if (seconds < 120) {
            return seconds + " s";
        }
        if (seconds < 2 * 3600) {
            return seconds / 60 + " min";
        }
        if (seconds < 2 * 86_400) {
            return seconds / 3600 + " h";
        }
        return seconds / 86_400 + " days";
    }
}
