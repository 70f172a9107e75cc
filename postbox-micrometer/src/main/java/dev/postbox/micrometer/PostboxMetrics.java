package dev.postbox.micrometer;

import dev.postbox.message.MessageRecord;
import dev.postbox.message.WorkerListener;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.query.Backlog;
import dev.postbox.relay.RelayListener;
import dev.postbox.retention.Retention;
import dev.postbox.retention.RetentionPolicy;
import dev.postbox.retention.RetentionTable;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * The {@code postbox.*} meters. Backlog gauges show the last {@link BacklogMonitor} read (NaN before the first):
 * <ul>
 * <li>{@code postbox.outbox.backlog{status=pending|publishing|failed|dead}}, {@code postbox.outbox.dead} (the one
 * to alert on) and {@code postbox.outbox.oldest.age} (seconds the oldest unfinished event has waited, 0 when none)</li>
 * <li>{@code postbox.message.backlog{status=pending|processing|failed|dead}}, {@code postbox.message.dead} and
 * {@code postbox.message.oldest.age}: the same for the message events</li>
 * <li>{@code postbox.publish.latency{channel}}: create_time to published, with a percentile histogram</li>
 * <li>{@code postbox.publish.outcomes{outcome=published|failed|dead, channel}}</li>
 * <li>{@code postbox.relay.batch.size} (events claimed per cycle that claimed any) and {@code postbox.relay.batch.duration}</li>
 * <li>{@code postbox.message.outcomes{outcome=succeeded|failed|dead|cancelled}} of the message-event worker</li>
 * <li>with retention on: {@code postbox.retention.deleted{table}} (rows this instance's runs removed, per table with a
 * rule: deleted, archived, or in dropped partitions by the catalog's estimate), {@code postbox.retention.last.success}
 * (seconds since this instance's last successful run, NaN before one), with the outbox's partitions strategy
 * {@code postbox.retention.partition.runway} (seconds: how far ahead of the database's clock the outbox's partitions
 * reach, as the last successful run left them less the time since it; NaN before such a run), and
 * {@code postbox.table.rows{table}} and {@code postbox.table.bytes{table}} (the catalog's estimate of each Postbox
 * table, read by the monitor's loop, NaN before a read and where the database keeps no estimate, as on H2)</li>
 * </ul>
 * It is the relay's and the worker's listener: each hook only increments a meter and never throws. Meters exist
 * from the first {@link #bindTo}; a registry bound later gets them too. Thread-safe.
 */
public final class PostboxMetrics implements MeterBinder, RelayListener, WorkerListener {

    /** Distinct channel tags kept; events of further channels (typos, usually, which go DEAD) share one tag. */
    public static final int MAX_CHANNELS = 64;
    public static final String OTHER_CHANNEL = "_other";

    private record ChannelMeters(Counter published, Counter failed, Counter dead, Timer latency) {
    }

    private final BacklogMonitor monitor;
    private final Retention retention;
    private final List<String> knownChannels;
    private final CompositeMeterRegistry registry = new CompositeMeterRegistry();
    private final Map<String, ChannelMeters> channels = new ConcurrentHashMap<>();
    private volatile boolean bound;
    private volatile DistributionSummary batchSize;
    private volatile Timer batchDuration;
    private volatile Counter messageSucceeded;
    private volatile Counter messageFailed;
    private volatile Counter messageDead;
    private volatile Counter messageCancelled;
    private volatile Counter leaseExpiries;

    /**
     * @param monitor       the source of the backlog gauges
     * @param knownChannels channels whose publish meters are registered at once (at 0), e.g. the routed ones
     */
    public PostboxMetrics(BacklogMonitor monitor, Collection<String> knownChannels) {
        this(monitor, knownChannels, null);
    }

    /**
     * @param retention the source of the {@code postbox.retention.*} meters, or null (retention off: none of them,
     *                  and no {@code postbox.table.*} gauges)
     */
    public PostboxMetrics(BacklogMonitor monitor, Collection<String> knownChannels, Retention retention) {
        this(monitor, knownChannels, retention, List.of());
    }

    /**
     * @param tags on every meter, e.g. {@code source=orders} where one registry holds the meters of several Postboxes
     *             (postbox-server: one per source)
     */
    public PostboxMetrics(BacklogMonitor monitor, Collection<String> knownChannels, Retention retention,
                          Iterable<Tag> tags) {
        registry.config().commonTags(tags);
        this.retention = retention;
        this.monitor = Objects.requireNonNull(monitor, "monitor");
        this.knownChannels = List.copyOf(knownChannels);
    }

    @Override
    public synchronized void bindTo(MeterRegistry target) {
        if (target == registry || registry.getRegistries().contains(target)) {
            return;
        }
        registry.add(target);
        if (bound) {
            return;
        }
        backlogMeters("outbox", "publishing", Backlogs::outbox);
        backlogMeters("message", "processing", Backlogs::messages);
        batchSize = DistributionSummary.builder("postbox.relay.batch.size").baseUnit("events")
                .description("Events claimed per relay cycle").register(registry);
        batchDuration = Timer.builder("postbox.relay.batch.duration")
                .description("One relay claim-publish-record cycle").register(registry);
        messageSucceeded = messageOutcome("succeeded");
        messageFailed = messageOutcome("failed");
        messageDead = messageOutcome("dead");
        messageCancelled = messageOutcome("cancelled");
        leaseExpiries = Counter.builder("postbox.relay.lease.expiries")
                .description("Events taken over after their relay's lease expired without an outcome (a relay"
                        + " crashed or was killed); not publish failures").register(registry);
        if (retention != null) {
            retentionMeters(retention);
        }
        bound = true;
        knownChannels.forEach(this::channel);
    }

    /** The table's {@code table} tag: outbox, messages, consume-log, compensations. */
    public static String tableTag(RetentionTable table) {
        StringBuilder b = new StringBuilder();
        for (char ch : table.field().toCharArray()) {
            if (Character.isUpperCase(ch)) {
                b.append('-').append(Character.toLowerCase(ch));
            } else {
                b.append(ch);
            }
        }
        return b.toString();
    }

    private void retentionMeters(Retention r) {
        for (RetentionTable t : r.policy().tables()) {
            FunctionCounter.builder("postbox.retention.deleted", r, x -> x.status().removedByTable().getOrDefault(t, 0L))
                    .tag("table", tableTag(t)).baseUnit("rows")
                    .description("Rows this instance's retention runs removed (deleted, archived, or in dropped"
                            + " partitions by the catalog's estimate)").register(registry);
        }
        TimeGauge.builder("postbox.retention.last.success", r, TimeUnit.SECONDS, PostboxMetrics::secondsSinceSuccess)
                .description("Seconds since this instance's last successful retention run (NaN before one)")
                .strongReference(true).register(registry);
        if (r.policy().strategy(RetentionTable.OUTBOX) == RetentionPolicy.Strategy.PARTITIONS) {
            TimeGauge.builder("postbox.retention.partition.runway", r, TimeUnit.SECONDS, PostboxMetrics::runwaySeconds)
                    .description("How far ahead of the database's clock the outbox's partitions reach (a write past"
                            + " them fails): the last successful run's runway less the time since it; NaN before one")
                    .strongReference(true).register(registry);
        }
        for (RetentionTable t : RetentionTable.values()) {
            Gauge.builder("postbox.table.rows", monitor, m -> size(m, t, true)).tag("table", tableTag(t)).baseUnit("rows")
                    .description("The database catalog's estimate of the table's rows (NaN where it keeps none)")
                    .strongReference(true).register(registry);
            Gauge.builder("postbox.table.bytes", monitor, m -> size(m, t, false)).tag("table", tableTag(t))
                    .baseUnit("bytes")
                    .description("The database catalog's estimate of the table's size with indexes (NaN where it keeps none)")
                    .strongReference(true).register(registry);
        }
    }

    private static double secondsSinceSuccess(Retention r) {
        Instant last = r.status().lastSuccess();
        return last == null ? Double.NaN : Math.max(0, Duration.between(last, r.clock().instant()).toNanos() / 1e9);
    }

    private static double runwaySeconds(Retention r) {
        Duration runway = RetentionRunway.at(r.status(), r.clock().instant());
        return runway == null ? Double.NaN : runway.toNanos() / 1e9;
    }

    private static double size(BacklogMonitor m, RetentionTable t, boolean rows) {
        Retention.TableSize s = m.tableSize(t);
        if (s == null) {
            return Double.NaN;
        }
        long v = rows ? s.rows() : s.bytes();
        return v < 0 ? Double.NaN : v;
    }

    /** {@code postbox.<table>.backlog{status}}, {@code .dead} and {@code .oldest.age} of one table. */
    private void backlogMeters(String table, String inProgress, Function<Backlogs, Backlog> of) {
        String what = table.equals("outbox") ? "outbox events" : "message events";
        backlog(table, what, "pending", of, Backlog::pending);
        backlog(table, what, inProgress, of, Backlog::inProgress);
        backlog(table, what, "failed", of, Backlog::failed);
        backlog(table, what, "dead", of, Backlog::dead);
        Gauge.builder("postbox." + table + ".dead", monitor, m -> value(m, of, Backlog::dead))
                .description("DEAD " + what + ": a person must retry or cancel them")
                .strongReference(true).register(registry);
        TimeGauge.builder("postbox." + table + ".oldest.age", monitor, TimeUnit.SECONDS, m -> oldestAgeSeconds(m, of))
                .description("How long the oldest unfinished (pending, " + inProgress + ", failed) " + what.substring(0, what.length() - 1)
                        + " has waited")
                .strongReference(true).register(registry);
    }

    private void backlog(String table, String what, String status, Function<Backlogs, Backlog> of,
                         ToLongFunction<Backlog> count) {
        Gauge.builder("postbox." + table + ".backlog", monitor, m -> value(m, of, count)).tag("status", status)
                .description(Character.toUpperCase(what.charAt(0)) + what.substring(1) + " by status")
                .strongReference(true).register(registry);
    }

    @Override
    public void leaseExpired(OutboxRecord event, int expiries) {
        Counter c = leaseExpiries;
        if (c != null) {
            c.increment();
        }
    }

    private Counter messageOutcome(String outcome) {
        return Counter.builder("postbox.message.outcomes").tag("outcome", outcome)
                .description("Recorded outcomes of message-event handling").register(registry);
    }

    private static double value(BacklogMonitor m, Function<Backlogs, Backlog> of, ToLongFunction<Backlog> count) {
        Backlogs b = m.latest();
        return b == null ? Double.NaN : count.applyAsLong(of.apply(b));
    }

    private static double oldestAgeSeconds(BacklogMonitor m, Function<Backlogs, Backlog> of) {
        Backlogs b = m.latest();
        if (b == null) {
            return Double.NaN;
        }
        return of.apply(b).oldestUnfinishedAge().map(d -> d.toNanos() / 1e9).orElse(0.0);
    }

    private ChannelMeters channel(String name) {
        String channel = name == null ? "" : name;
        ChannelMeters m = channels.get(channel);
        if (m != null) {
            return m;
        }
        String tag = channels.size() >= MAX_CHANNELS ? OTHER_CHANNEL : channel;
        return channels.computeIfAbsent(tag, t -> new ChannelMeters(
                publishOutcome("published", t), publishOutcome("failed", t), publishOutcome("dead", t),
                Timer.builder("postbox.publish.latency").tag("channel", t)
                        .description("From an outbox event's create_time until the target accepted it")
                        .publishPercentileHistogram().register(registry)));
    }

    private Counter publishOutcome(String outcome, String channel) {
        return Counter.builder("postbox.publish.outcomes").tag("outcome", outcome).tag("channel", channel)
                .description("Recorded outcomes of outbox publish attempts").register(registry);
    }

    @Override
    public void published(OutboxRecord event, Duration latency) {
        if (!bound) {
            return;
        }
        try {
            ChannelMeters m = channel(event.channel());
            m.published().increment();
            if (latency != null && !latency.isNegative()) {
                m.latency().record(latency);
            }
        } catch (RuntimeException ignored) {
            // a metric must never disturb the relay
        }
    }

    @Override
    public void failed(OutboxRecord event, String reason, Instant nextRetry) {
        if (!bound) {
            return;
        }
        try {
            channel(event.channel()).failed().increment();
        } catch (RuntimeException ignored) {
            // a metric must never disturb the relay
        }
    }

    @Override
    public void dead(OutboxRecord event, String reason) {
        if (!bound) {
            return;
        }
        try {
            channel(event.channel()).dead().increment();
        } catch (RuntimeException ignored) {
            // a metric must never disturb the relay
        }
    }

    @Override
    public void batch(String relayId, int claimed, int published, int failed, int dead, Duration took) {
        if (!bound) {
            return;
        }
        try {
            batchSize.record(claimed);
            batchDuration.record(took);
        } catch (RuntimeException ignored) {
            // a metric must never disturb the relay
        }
    }

    @Override
    public void handled(MessageRecord event, Duration took, Throwable error) {
        if (bound && error == null) {
            messageSucceeded.increment();
        }
    }

    @Override
    public void failed(MessageRecord event, String reason, Instant nextRetry) {
        if (bound) {
            messageFailed.increment();
        }
    }

    @Override
    public void dead(MessageRecord event, String reason) {
        if (bound) {
            messageDead.increment();
        }
    }

    @Override
    public void cancelled(MessageRecord event, String reason) {
        if (bound) {
            messageCancelled.increment();
        }
    }
}
