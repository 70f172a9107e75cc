package dev.postbox.relay;

import dev.postbox.common.RetryPolicy;
import dev.postbox.common.ValidationException;
import dev.postbox.internal.Check;
import dev.postbox.internal.Hosts;
import dev.postbox.internal.Settings;
import dev.postbox.internal.poll.Heartbeat;
import dev.postbox.spi.ErrorClassifier;
import dev.postbox.spi.Publisher;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Configures a {@link Relay}; obtained from {@code postbox.relay(publisher)}. {@link #build()} validates
 * every setting (naming the one that is wrong) and freezes a copy of them for the relay it builds. Not
 * thread-safe.
 */
public final class RelayBuilder {

    final Settings settings;
    final Publisher publisher;
    String instanceId = Hosts.instanceId();
    int batchSize = RelayDefaults.BATCH_SIZE;
    Duration lease = RelayDefaults.LEASE;
    Duration sendTimeout = RelayDefaults.SEND_TIMEOUT;
    Duration pollMin = RelayDefaults.POLL_MIN;
    Duration pollMax = RelayDefaults.POLL_MAX;
    int poolSize = RelayDefaults.POOL_SIZE;
    int inFlightBatches = RelayDefaults.IN_FLIGHT_BATCHES;
    Duration shutdownTimeout = RelayDefaults.SHUTDOWN_TIMEOUT;
    boolean ordered = true;
    Set<String> unorderedTopics = new LinkedHashSet<>();
    RetryPolicy retryPolicy = RetryPolicy.exponential();
    Map<String, RetryPolicy> retryPolicies = new HashMap<>();
    ErrorClassifier classifier = ErrorClassifier.DEFAULT;
    RelayListener listener = RelayListener.NOOP;
    DataSource dataSource;
    boolean listen = true;
    boolean asyncCommit = true;
    int maxLeaseExpiries = RelayDefaults.MAX_LEASE_EXPIRIES;
    /** Null: the default, {@link RelayDefaults#MAX_CLOCK_SKEW} or a third of the lease if that is less. */
    Duration maxClockSkew;
    boolean clockSkewCheck = true;
    Duration heartbeatInterval = RelayDefaults.HEARTBEAT_INTERVAL;

    /** Made by {@code Postbox#relay} ({@link Wiring}). */
    RelayBuilder(Settings settings, Publisher publisher) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.publisher = Objects.requireNonNull(publisher, "publisher");
    }

    /** The {@code locked_by} of this relay, unique among relays; default host-pid-random. At most 128 characters. */
    public RelayBuilder instanceId(String instanceId) {
        this.instanceId = instanceId;
        return this;
    }

    /** Events claimed per cycle, 1..{@value RelayDefaults#MAX_BATCH_SIZE}; default {@value RelayDefaults#BATCH_SIZE}. */
    public RelayBuilder batchSize(int batchSize) {
        this.batchSize = batchSize;
        return this;
    }

    /**
     * How long a claim holds its events before another relay may take them over; at least 300 ms.
     * Renewed every third of it while the batch is in flight, so it may be shorter than the send timeout:
     * it is how long the events of a relay that died wait before they move again. Default 5 s.
     */
    public RelayBuilder leaseDuration(Duration lease) {
        this.lease = lease;
        return this;
    }

    /**
     * Longest wait for the outcomes of one wave of a batch (each wave has its own deadline); unfinished
     * sends are recorded as retryable timeouts. Also bounds how long close() waits after interrupting the
     * relay thread. Default 10 s.
     */
    public RelayBuilder sendTimeout(Duration sendTimeout) {
        this.sendTimeout = sendTimeout;
        return this;
    }

    /** Idle polling: starts at {@code min} after an empty claim, doubles up to {@code max}. Default 10 ms..500 ms. */
    public RelayBuilder pollInterval(Duration min, Duration max) {
        this.pollMin = min;
        this.pollMax = max;
        return this;
    }

    /** Connections of the relay's own pool; default {@value RelayDefaults#POOL_SIZE}. */
    public RelayBuilder poolSize(int poolSize) {
        this.poolSize = poolSize;
        return this;
    }

    /**
     * How many batches this relay has in flight at once, each on a thread of its own; default
     * {@value RelayDefaults#IN_FLIGHT_BATCHES}, at most {@value RelayDefaults#MAX_IN_FLIGHT_BATCHES}. While
     * one batch is being published and its outcomes recorded, the next is claimed and sent: under a steady
     * stream a new event does not wait for the cycle before it, and a backlog drains with the claim of one
     * batch overlapping the publish of the other. Order is kept as between two relays: an aggregate's later
     * events cannot be claimed while an earlier one is in flight in any batch. 1: one cycle at a time.
     */
    public RelayBuilder inFlightBatches(int inFlightBatches) {
        this.inFlightBatches = inFlightBatches;
        return this;
    }

    /**
     * How long close() waits for the batch in flight before interrupting the relay thread (it then waits
     * up to one more send timeout); default 15 s.
     */
    public RelayBuilder shutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = shutdownTimeout;
        return this;
    }

    /**
     * Per-aggregate order (default true): an event is published only after every earlier event of its
     * aggregate is PUBLISHED or CANCELLED. False publishes in any order, for throughput.
     */
    public RelayBuilder ordered(boolean ordered) {
        this.ordered = ordered;
        return this;
    }

    /** Topics whose events are published in any order even when the relay is ordered. */
    public RelayBuilder unorderedTopics(Set<String> topics) {
        this.unorderedTopics = new LinkedHashSet<>(topics);
        return this;
    }

    /** Backoff after a failure; default {@link RetryPolicy#exponential()} (2 s doubling, capped at 5 min, jittered). */
    public RelayBuilder retryPolicy(RetryPolicy policy) {
        this.retryPolicy = Objects.requireNonNull(policy, "retryPolicy");
        return this;
    }

    /** Backoff for events of one type, overriding the default policy. */
    public RelayBuilder retryPolicy(String eventType, RetryPolicy policy) {
        this.retryPolicies.put(Objects.requireNonNull(eventType, "eventType"), Objects.requireNonNull(policy, "retryPolicy"));
        return this;
    }

    /** Decides RETRY or DEAD for a publisher's exception; default {@link ErrorClassifier#DEFAULT}. */
    public RelayBuilder errorClassifier(ErrorClassifier classifier) {
        this.classifier = Objects.requireNonNull(classifier, "errorClassifier");
        return this;
    }

    /** Metrics and tracing hooks; default {@link RelayListener#NOOP}. */
    public RelayBuilder listener(RelayListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /**
     * A data source reserved for this relay (e.g. its own small pool), used as is and not closed by the
     * relay; on MySQL/MariaDB the relay's transactions on it run at READ COMMITTED, as on its own pool (a
     * connection at a stricter level gets it back when the relay returns it). Default: a HikariCP pool of
     * {@code poolSize} connections opened by the relay on the application's database: its settings are copied
     * when the application's data source is HikariCP, otherwise it draws physical connections from it. Never
     * the application's own pool.
     */
    public RelayBuilder dataSource(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        return this;
    }

    /**
     * On PostgreSQL, whether to LISTEN for the writers' notifications on one extra dedicated connection
     * and claim at once when one arrives, instead of waiting for the next poll. Default true; needs the
     * PostgreSQL driver on the class path. Ignored on other databases.
     */
    public RelayBuilder listenForNotifications(boolean listen) {
        this.listen = listen;
        return this;
    }

    /**
     * On PostgreSQL, whether the relay's own transactions (claims, outcomes, leases given back) commit with
     * {@code synchronous_commit = off}: they return before their WAL is flushed, which takes the flush
     * (one to several milliseconds) off every cycle. A database crash can lose the last such commits (at
     * most about three times {@code wal_writer_delay}); the events stay in the outbox as they were before
     * the lost commit, so the only effect is that some are published again, never that one is lost. The
     * events themselves are written by the application's transaction, whose setting this does not touch.
     * Default true; applies to the relay's own pool only (not to a {@link #dataSource} handed in).
     */
    public RelayBuilder asyncCommit(boolean asyncCommit) {
        this.asyncCommit = asyncCommit;
        return this;
    }

    /**
     * Takeovers after an expired lease (the relay holding the event stopped without an outcome) after
     * which the event is DEAD, with a reason saying so, rather than published again: a poison event that
     * crashes every relay stops at this bound. Takeovers never use up the event's retries. 1..1000;
     * default {@value RelayDefaults#MAX_LEASE_EXPIRIES}.
     */
    public RelayBuilder maxLeaseExpiries(int maxLeaseExpiries) {
        this.maxLeaseExpiries = maxLeaseExpiries;
        return this;
    }

    /**
     * Largest offset between this relay's clock and the database's at which it still takes over other
     * relays' expired leases (measured at the first claim, then every 30 s). Above it the relay logs
     * ERROR, tells its listener, reports {@link Relay#clockTrusted()} false, and only publishes new and
     * due events. Must be less than two thirds of the lease. Default 1 s, or a third of the lease if
     * that is less.
     */
    public RelayBuilder maxClockSkew(Duration maxClockSkew) {
        this.maxClockSkew = maxClockSkew;
        return this;
    }

    /**
     * Whether to measure the clock's offset against the database's (default true). False trusts the
     * relay's clock as it is: for a test clock that is far from the database's on purpose (a settable
     * clock that tests advance), or where the operator guarantees synchronized clocks.
     */
    public RelayBuilder clockSkewCheck(boolean check) {
        this.clockSkewCheck = check;
        return this;
    }

    /**
     * Time between two heartbeats (100 ms .. 1 min; default 10 s): the relay's row in {@code biz_relay_instance}
     * gets its last-seen time, and a {@code biz_relay_stats} row counts what it published and failed since the last
     * one, on a daemon thread of its own. A failing heartbeat is logged and tried again; it never stops the relay.
     */
    public RelayBuilder heartbeatInterval(Duration heartbeatInterval) {
        this.heartbeatInterval = heartbeatInterval;
        return this;
    }

    /**
     * Validates and builds the relay (not started). The relay keeps a frozen copy of the settings
     * ({@link RelayConfig}): changing this builder afterwards changes only relays built later.
     */
    public Relay build() {
        Check.key("instanceId", instanceId, 128);
        Check.range("batchSize", batchSize, 1, RelayDefaults.MAX_BATCH_SIZE);
        Check.range("poolSize", poolSize, 1, 64);
        Check.range("inFlightBatches", inFlightBatches, 1, RelayDefaults.MAX_IN_FLIGHT_BATCHES);
        positive("leaseDuration", lease);
        positive("sendTimeout", sendTimeout);
        positive("pollInterval.min", pollMin);
        positive("pollInterval.max", pollMax);
        positive("shutdownTimeout", shutdownTimeout);
        Check.between("heartbeatInterval", heartbeatInterval, Heartbeat.MIN_INTERVAL, Heartbeat.MAX_INTERVAL);
        if (lease.compareTo(RelayDefaults.MIN_LEASE) < 0) {
            throw new ValidationException("leaseDuration", "must be at least " + RelayDefaults.MIN_LEASE
                    + " (was " + lease + "), so that renewals every third of it have time to reach the database");
        }
        Check.range("maxLeaseExpiries", maxLeaseExpiries, 1, 1000);
        Duration skew = maxClockSkew;
        if (skew == null) {
            Duration third = LeaseKeeper.interval(lease);
            skew = third.compareTo(RelayDefaults.MAX_CLOCK_SKEW) < 0 ? third : RelayDefaults.MAX_CLOCK_SKEW;
        }
        if (clockSkewCheck) {
            positive("maxClockSkew", skew);
            if (skew.compareTo(lease.minus(LeaseKeeper.interval(lease))) >= 0) {
                throw new ValidationException("maxClockSkew", "must be less than two thirds of leaseDuration " + lease
                        + " (was " + skew + "), or a relay within the bound could take over a lease that is"
                        + " still being renewed");
            }
        }
        if (pollMax.compareTo(pollMin) < 0) {
            throw new ValidationException("pollInterval.max", "must be at least pollInterval.min " + pollMin
                    + " (was " + pollMax + ")");
        }
        for (String topic : unorderedTopics) {
            Check.required("unorderedTopics", topic, 128);
        }
        return new Relay(settings, new RelayConfig(publisher, instanceId, batchSize, lease, sendTimeout, pollMin,
                pollMax, poolSize, inFlightBatches, shutdownTimeout, ordered, unorderedTopics, retryPolicy, retryPolicies, classifier,
                listener, dataSource, listen, asyncCommit, maxLeaseExpiries, skew, clockSkewCheck, heartbeatInterval));
    }

    /** Builds and starts the relay. */
    public Relay start() {
        return build().start();
    }

    private static void positive(String field, Duration d) {
        Check.positive(field, d);
    }
}
