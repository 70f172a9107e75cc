package dev.postbox.micrometer;

import dev.postbox.compensation.CompensationJob;
import dev.postbox.compensation.CompensationListener;
import dev.postbox.inbox.InboxListener;
import dev.postbox.inbox.InboxResult;
import dev.postbox.message.MessageRecord;
import dev.postbox.query.Monitoring;
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
 * The {@code postbox.*} meters (the full reference, with the PromQL to aggregate them, is docs/metrics.md). Backlog
 * gauges show the last {@link BacklogMonitor} read (NaN before the first). The gauges read from whole tables
 * (backlogs, dead, oldest ages, table sizes, relay instances, pending compensations) show the same value on every
 * instance reading one database, and carry the tag {@code scope=table} so that dashboards take their {@code max}
 * per database, never their {@code sum}:
 * <ul>
 * <li>{@code postbox.outbox.backlog{status=pending|publishing|failed|dead}}, {@code postbox.outbox.dead} (the one
 * to alert on) and {@code postbox.outbox.oldest.age} (seconds the oldest unfinished event has waited, 0 when none)</li>
 * <li>{@code postbox.message.backlog{status=pending|processing|failed|dead}}, {@code postbox.message.dead} and
 * {@code postbox.message.oldest.age}: the same for the message events</li>
 * <li>{@code postbox.publish.latency{channel, destination}}: create_time to published, with a percentile histogram</li>
 * <li>{@code postbox.publish.outcomes{outcome=published|failed|dead, channel, destination}}; the destination is what
 * the {@link Builder#destinations destination function} names for the event (the route's topic, exchange, subject,
 * endpoint or bus), the channel when there is none</li>
 * <li>{@code postbox.relay.fenced}: outcomes not recorded because this relay no longer held the rows' lease</li>
 * <li>{@code postbox.relay.instances{scope=table}}: relays whose heartbeat is recent</li>
 * <li>{@code postbox.table.rows{table, scope=table}}, {@code postbox.table.bytes{table, scope=table}}: the catalog's
 * estimate of each Postbox table (NaN before a read and where the database keeps none: bytes on H2)</li>
 * <li>{@code postbox.inbox.deliveries{consumer, outcome=ran|duplicate|failed}} and
 * {@code postbox.inbox.duplicates{consumer}}: every {@code Inbox#once} of the Postbox it listens to</li>
 * <li>{@code postbox.compensation.outcomes{job, outcome=done|already_done|failed|gave_up|error}} and
 * {@code postbox.compensation.pending{job, scope=table}} (failed compensations with attempts left)</li>
 * <li>{@code postbox.relay.batch.size} (events claimed per cycle that claimed any) and {@code postbox.relay.batch.duration}</li>
 * <li>{@code postbox.message.outcomes{outcome=succeeded|failed|dead|cancelled}} of the message-event worker</li>
 * <li>with retention on: {@code postbox.retention.deleted{table}} (rows this instance's runs removed, per table with a
 * rule: deleted, archived, or in dropped partitions by the catalog's estimate), {@code postbox.retention.last.success}
 * (seconds since this instance's last successful run, NaN before one), with the outbox's partitions strategy
 * {@code postbox.retention.partition.runway} (seconds: how far ahead of the database's clock the outbox's partitions
 * reach, as the last successful run left them less the time since it; NaN before such a run)</li>
 * </ul>
 * It is the relay's and the worker's listener: each hook only increments a meter and never throws. Meters exist
 * from the first {@link #bindTo}; a registry bound later gets them too. Thread-safe.
 */
public final class PostboxMetrics implements MeterBinder, RelayListener, WorkerListener, InboxListener,
        CompensationListener {

    /** Distinct channel tags kept; events of further channels (typos, usually, which go DEAD) share one tag. */
    public static final int MAX_CHANNELS = 64;
    public static final String OTHER_CHANNEL = "_other";
    /** Distinct consumer tags kept; further consumers share {@link #OTHER_CHANNEL}. */
    public static final int MAX_CONSUMERS = 64;
    /** The tag of the gauges read from whole tables: the same on every instance on one database. */
    public static final Tag TABLE_SCOPE = Tag.of("scope", "table");

    private record ChannelMeters(Counter published, Counter failed, Counter dead, Timer latency) {
    }

    private record InboxMeters(Counter ran, Counter duplicate, Counter failed, Counter duplicates) {
    }

    private record JobMeters(Counter done, Counter alreadyDone, Counter failed, Counter gaveUp, Counter error) {
    }

    private final BacklogMonitor monitor;
    private final Retention retention;
    private final List<String> knownChannels;
    private final List<String> knownDestinations;
    private final List<String> knownConsumers;
    private final Function<OutboxRecord, String> destinations;
    private final CompositeMeterRegistry registry = new CompositeMeterRegistry();
    private final Map<String, ChannelMeters> channels = new ConcurrentHashMap<>();
    private final Map<String, InboxMeters> consumers = new ConcurrentHashMap<>();
    private final Map<String, JobMeters> jobs = new ConcurrentHashMap<>();
    private volatile Counter fenced;
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
        this(builder(monitor).channels(knownChannels).retention(retention).tags(tags));
    }

    private PostboxMetrics(Builder b) {
        registry.config().commonTags(b.tags);
        this.retention = b.retention;
        this.monitor = Objects.requireNonNull(b.monitor, "monitor");
        this.knownChannels = List.copyOf(b.channels);
        this.knownDestinations = b.channels.stream().map(c -> b.channelDestination.apply(c)).toList();
        this.knownConsumers = List.copyOf(b.consumers);
        this.destinations = b.destinations;
    }

    /** Starts configuring the meters fed by {@code monitor}. */
    public static Builder builder(BacklogMonitor monitor) {
        return new Builder(Objects.requireNonNull(monitor, "monitor"));
    }

    /** Configures {@link PostboxMetrics}; not thread-safe. */
    public static final class Builder {
        private final BacklogMonitor monitor;
        private Collection<String> channels = List.of();
        private Retention retention;
        private Iterable<Tag> tags = List.of();
        private Collection<String> consumers = List.of();
        private Function<OutboxRecord, String> destinations = OutboxRecord::channel;
        private Function<String, String> channelDestination = c -> c;

        private Builder(BacklogMonitor monitor) {
            this.monitor = monitor;
        }

        /** Channels whose publish meters are registered at once (at 0), e.g. the routed ones; default none. */
        public Builder channels(Collection<String> channels) {
            this.channels = List.copyOf(channels);
            return this;
        }

        /** The source of the {@code postbox.retention.*} meters, or null (the default: retention off, none of them). */
        public Builder retention(Retention retention) {
            this.retention = retention;
            return this;
        }

        /** Tags on every meter, e.g. {@code source=orders} (postbox-server: one per source); default none. */
        public Builder tags(Iterable<Tag> tags) {
            this.tags = Objects.requireNonNull(tags, "tags");
            return this;
        }

        /** Consumers whose inbox meters are registered at once (at 0); default none. */
        public Builder consumers(Collection<String> consumers) {
            this.consumers = List.copyOf(consumers);
            return this;
        }

        /**
         * The {@code destination} tag of an event's publish meters ({@code ofEvent}: the topic, exchange, subject,
         * endpoint or bus name its route sends it to; null or blank falls back to the channel) and of a known channel
         * pre-registered before any event ({@code ofChannel}); default: the channel for both.
         */
        public Builder destinations(Function<OutboxRecord, String> ofEvent, Function<String, String> ofChannel) {
            this.destinations = Objects.requireNonNull(ofEvent, "ofEvent");
            this.channelDestination = Objects.requireNonNull(ofChannel, "ofChannel");
            return this;
        }

        /** The meters; bind them with {@link PostboxMetrics#bindTo}. */
        public PostboxMetrics build() {
            return new PostboxMetrics(this);
        }
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
        fenced = Counter.builder("postbox.relay.fenced")
                .description("Outcomes this relay did not record because its lease on the rows had expired and another"
                        + " relay took them over (fenced writes); those events are published again").register(registry);
        Gauge.builder("postbox.relay.instances", monitor, m -> m.relaysAlive() < 0 ? Double.NaN : m.relaysAlive())
                .tags(List.of(TABLE_SCOPE))
                .description("Relays whose heartbeat is recent (read from the heartbeat table: the same on every instance)")
                .strongReference(true).register(registry);
        tableMeters();
        for (CompensationJob j : monitor.jobs()) {
            job(BacklogMonitor.jobTag(j));
            String tag = BacklogMonitor.jobTag(j);
            Gauge.builder("postbox.compensation.pending", monitor, m -> {
                Long n = m.pending().get(tag);
                return n == null ? Double.NaN : n;
            }).tag("compensation", tag).tags(List.of(TABLE_SCOPE))
                    .description("Failed compensations of the job with attempts left (the job's next runs try them"
                            + " again)").strongReference(true).register(registry);
        }
        if (retention != null) {
            retentionMeters(retention);
        }
        bound = true;
        for (int i = 0; i < knownChannels.size(); i++) {
            channel(knownChannels.get(i), knownDestinations.get(i));
        }
        knownConsumers.forEach(this::consumer);
    }

    private void tableMeters() {
        for (RetentionTable t : RetentionTable.values()) {
            Gauge.builder("postbox.table.rows", monitor, m -> size(m, t, true)).tag("table", tableTag(t))
                    .tags(List.of(TABLE_SCOPE)).baseUnit("rows")
                    .description("The database catalog's estimate of the table's rows (NaN where it keeps none)")
                    .strongReference(true).register(registry);
            Gauge.builder("postbox.table.bytes", monitor, m -> size(m, t, false)).tag("table", tableTag(t))
                    .tags(List.of(TABLE_SCOPE)).baseUnit("bytes")
                    .description("The database catalog's estimate of the table's size with indexes (NaN where it keeps none)")
                    .strongReference(true).register(registry);
        }
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
        Monitoring.TableSize s = m.tableSize(t);
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
        Gauge.builder("postbox." + table + ".dead", monitor, m -> value(m, of, Backlog::dead)).tags(List.of(TABLE_SCOPE))
                .description("DEAD " + what + ": a person must retry or cancel them")
                .strongReference(true).register(registry);
        TimeGauge.builder("postbox." + table + ".oldest.age", monitor, TimeUnit.SECONDS, m -> oldestAgeSeconds(m, of))
                .tags(List.of(TABLE_SCOPE)).description("How long the oldest unfinished (pending, " + inProgress + ", failed) " + what.substring(0, what.length() - 1)
                        + " has waited")
                .strongReference(true).register(registry);
    }

    private void backlog(String table, String what, String status, Function<Backlogs, Backlog> of,
                         ToLongFunction<Backlog> count) {
        Gauge.builder("postbox." + table + ".backlog", monitor, m -> value(m, of, count)).tag("status", status)
                .tags(List.of(TABLE_SCOPE)).description(Character.toUpperCase(what.charAt(0)) + what.substring(1) + " by status")
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

    private ChannelMeters meters(OutboxRecord event) {
        String destination = null;
        try {
            destination = destinations.apply(event);
        } catch (RuntimeException ignored) {
            // an unknown destination is tagged with the channel
        }
        return channel(event.channel(), destination);
    }

    private ChannelMeters channel(String name, String destinationName) {
        String channel = name == null ? "" : name;
        String destination = destinationName == null || destinationName.isBlank() ? channel : destinationName;
        String key = channel + "\u0000" + destination;
        ChannelMeters m = channels.get(key);
        if (m != null) {
            return m;
        }
        boolean full = channels.size() >= MAX_CHANNELS;
        String c = full ? OTHER_CHANNEL : channel;
        String d = full ? OTHER_CHANNEL : destination;
        return channels.computeIfAbsent(full ? OTHER_CHANNEL + "\u0000" + OTHER_CHANNEL : key, k -> new ChannelMeters(
                publishOutcome("published", c, d), publishOutcome("failed", c, d), publishOutcome("dead", c, d),
                Timer.builder("postbox.publish.latency").tag("channel", c).tag("destination", d)
                        .description("From an outbox event's create_time until the target accepted it")
                        .publishPercentileHistogram().register(registry)));
    }

    /**
     * Registers the inbox meters of {@code consumer} at 0 now (they would otherwise appear at its first delivery);
     * does nothing before {@link #bindTo} or for a consumer already registered.
     */
    public void registerConsumer(String consumer) {
        if (bound) {
            consumer(consumer);
        }
    }

    private InboxMeters consumer(String name) {
        String consumer = name == null ? "" : name;
        InboxMeters m = consumers.get(consumer);
        if (m != null) {
            return m;
        }
        String tag = consumers.size() >= MAX_CONSUMERS ? OTHER_CHANNEL : consumer;
        return consumers.computeIfAbsent(tag, t -> new InboxMeters(inboxDelivery("ran", t), inboxDelivery("duplicate", t),
                inboxDelivery("failed", t), Counter.builder("postbox.inbox.duplicates").tag("consumer", t)
                .description("Deliveries the inbox suppressed as duplicates (the consumer had already consumed the"
                        + " event)").register(registry)));
    }

    private Counter inboxDelivery(String outcome, String consumer) {
        return Counter.builder("postbox.inbox.deliveries").tag("consumer", consumer).tag("outcome", outcome)
                .description("Inbox deliveries by outcome: ran, duplicate (skipped), failed (rolled back)")
                .register(registry);
    }

    private JobMeters job(String tag) {
        return jobs.computeIfAbsent(tag, t -> new JobMeters(jobOutcome("done", t), jobOutcome("already_done", t),
                jobOutcome("failed", t), jobOutcome("gave_up", t), jobOutcome("error", t)));
    }

    private Counter jobOutcome(String outcome, String job) {
        return Counter.builder("postbox.compensation.outcomes").tag("compensation", job).tag("outcome", outcome)
                .description("Keys a compensation job's runs compensated (done), found already done, failed (may run"
                        + " again), gave up on (attempts used up) or could not finish (error, tried again)")
                .register(registry);
    }

    @Override
    public void delivered(String consumer, String eventNo, InboxResult.Outcome outcome) {
        if (!bound) {
            return;
        }
        try {
            InboxMeters m = consumer(consumer);
            if (outcome == InboxResult.Outcome.DUPLICATE) {
                m.duplicate().increment();
                m.duplicates().increment();
            } else {
                m.ran().increment();
            }
        } catch (RuntimeException ignored) {
            // a metric must never disturb a delivery
        }
    }

    @Override
    public void failed(String consumer, String eventNo, Throwable failure) {
        if (!bound) {
            return;
        }
        try {
            consumer(consumer).failed().increment();
        } catch (RuntimeException ignored) {
            // a metric must never disturb a delivery
        }
    }

    @Override
    public void ran(CompensationJob job, CompensationJob.Run run) {
        if (!bound) {
            return;
        }
        try {
            JobMeters m = job(BacklogMonitor.jobTag(job));
            m.done().increment(run.done());
            m.alreadyDone().increment(run.alreadyDone());
            m.failed().increment(run.failed());
            m.gaveUp().increment(run.gaveUp());
            m.error().increment(run.errors());
        } catch (RuntimeException ignored) {
            // a metric must never disturb a job
        }
    }

    @Override
    public void fenced(String relayId, int count) {
        Counter c = fenced;
        if (c != null) {
            c.increment(count);
        }
    }

    private Counter publishOutcome(String outcome, String channel, String destination) {
        return Counter.builder("postbox.publish.outcomes").tag("outcome", outcome).tag("channel", channel)
                .tag("destination", destination)
                .description("Recorded outcomes of outbox publish attempts").register(registry);
    }

    @Override
    public void published(OutboxRecord event, Duration latency) {
        if (!bound) {
            return;
        }
        try {
            ChannelMeters m = meters(event);
            // the latency first: whoever sees the event counted published sees its latency too
            if (latency != null && !latency.isNegative()) {
                m.latency().record(latency);
            }
            m.published().increment();
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
            meters(event).failed().increment();
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
            meters(event).dead().increment();
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
