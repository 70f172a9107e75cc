package dev.postbox.spring.autoconfigure;

import dev.postbox.common.PostboxDefaults;
import dev.postbox.message.WorkerDefaults;
import dev.postbox.relay.EventBus;
import dev.postbox.relay.RelayDefaults;
import dev.postbox.retention.OutboxPartitions;
import dev.postbox.retention.RetentionPolicy;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code postbox.*} properties. Every default is the core's named constant (PostboxDefaults,
 * RelayDefaults, WorkerDefaults, EventBus), so the starter and a hand-built Postbox behave alike; the
 * core validates each value at start-up and names the property's field when one is out of range.
 */
@ConfigurationProperties(prefix = "postbox")
public class PostboxProperties {

    /** Whether to set up Postbox at all. */
    private boolean enabled = true;

    /** Prefix of every Postbox table name: a lower-case SQL identifier of at most 16 characters, or empty. */
    private String tablePrefix = PostboxDefaults.TABLE_PREFIX;

    /** Source written into events that name none; default: spring.application.name. */
    private String source;

    /** Largest event payload in UTF-8 bytes. */
    private int maxPayloadBytes = PostboxDefaults.MAX_PAYLOAD_BYTES;

    /** Largest event header map, as JSON in UTF-8 bytes. */
    private int maxHeadersBytes = PostboxDefaults.MAX_HEADERS_BYTES;

    /** On PostgreSQL, whether each writing transaction also sends one pg_notify that wakes listening relays. */
    private boolean notifyOnWrite = true;

    /**
     * On PostgreSQL, the least time between two such notifications from this application's writes (at most
     * 1 s; 0: every write): notifying commits are serialized server-wide, so one per interval keeps them from
     * capping the writers.
     */
    private java.time.Duration notifyInterval = PostboxDefaults.NOTIFY_INTERVAL;

    private final Schema schema = new Schema();
    private final Relay relay = new Relay();
    private final Worker worker = new Worker();
    private final Compensation compensation = new Compensation();
    private final EventBusProperties eventBus = new EventBusProperties();
    private final ListenersProperties listeners = new ListenersProperties();
    private final Metrics metrics = new Metrics();
    private final Health health = new Health();
    private final RetentionProperties retention = new RetentionProperties();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getTablePrefix() {
        return tablePrefix;
    }

    public void setTablePrefix(String tablePrefix) {
        this.tablePrefix = tablePrefix;
    }

    public String getSource() {
        return source;
    }

    public void setSource(String source) {
        this.source = source;
    }

    public int getMaxPayloadBytes() {
        return maxPayloadBytes;
    }

    public void setMaxPayloadBytes(int maxPayloadBytes) {
        this.maxPayloadBytes = maxPayloadBytes;
    }

    public int getMaxHeadersBytes() {
        return maxHeadersBytes;
    }

    public void setMaxHeadersBytes(int maxHeadersBytes) {
        this.maxHeadersBytes = maxHeadersBytes;
    }

    public boolean isNotifyOnWrite() {
        return notifyOnWrite;
    }

    public void setNotifyOnWrite(boolean notifyOnWrite) {
        this.notifyOnWrite = notifyOnWrite;
    }

    public java.time.Duration getNotifyInterval() {
        return notifyInterval;
    }

    public void setNotifyInterval(java.time.Duration notifyInterval) {
        this.notifyInterval = notifyInterval;
    }

    public Schema getSchema() {
        return schema;
    }

    public Relay getRelay() {
        return relay;
    }

    public Worker getWorker() {
        return worker;
    }

    public Compensation getCompensation() {
        return compensation;
    }

    public EventBusProperties getEventBus() {
        return eventBus;
    }

    public ListenersProperties getListeners() {
        return listeners;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public Health getHealth() {
        return health;
    }

    public RetentionProperties getRetention() {
        return retention;
    }

    /**
     * When and how the starter installs the Postbox tables. Whatever the mode, the start-up then checks that every
     * table Postbox uses exists at this Postbox's schema version, and fails naming what is missing and what to do.
     */
    public enum SchemaMode {
        /**
         * With Flyway on the class path (and spring.flyway.enabled not false): Postbox's migrations through Flyway on
         * any database, in their own history table {@code <prefix>postbox_flyway_history}; else with Liquibase 4.x
         * (and spring.liquibase.enabled not false) through Liquibase, in their own change log table
         * {@code <prefix>postbox_liquibase_changelog}. With neither: Postbox's installer on an embedded database (H2)
         * only; elsewhere run the shipped DDL yourself.
         */
        EMBEDDED,
        /** Postbox's installer on every database, also beside Flyway or Liquibase (versioned, a no-op when the schema is current). */
        ALWAYS,
        /** Never: the application installs the tables. */
        NEVER
    }

    public static class Schema {

        /** When to install the Postbox tables at start-up. */
        private SchemaMode mode = SchemaMode.EMBEDDED;

        public SchemaMode getMode() {
            return mode;
        }

        public void setMode(SchemaMode mode) {
            this.mode = mode;
        }
    }

    public static class Relay {

        /** Whether to run the relay in this application. */
        private boolean enabled = true;

        /** The locked_by of this relay, unique among relays; default host-pid-random. */
        private String instanceId;

        /** Events claimed per cycle (1..5000). */
        private int batchSize = RelayDefaults.BATCH_SIZE;

        /**
         * How long a claim is held before another relay may take the events over (at least 300ms); renewed
         * every third of it while the batch is in flight, so it is how long a dead relay's events wait.
         */
        private Duration leaseDuration = RelayDefaults.LEASE;

        /** How long one send may take before it counts as failed. */
        private Duration sendTimeout = RelayDefaults.SEND_TIMEOUT;

        /** Shortest pause between polls (after a full batch the relay claims again at once). */
        private Duration pollIntervalMin = RelayDefaults.POLL_MIN;

        /** Longest pause between polls when idle. */
        private Duration pollIntervalMax = RelayDefaults.POLL_MAX;

        /** Connections of the relay's own pool (1..64); never taken from the application's pool. */
        private int poolSize = RelayDefaults.POOL_SIZE;

        /**
         * Batches the relay has in flight at once (1..8), each on its own thread: the next is claimed while
         * one is published and recorded.
         */
        private int inFlightBatches = RelayDefaults.IN_FLIGHT_BATCHES;

        /** How long shutdown waits for the cycle in progress before giving the leases back. */
        private Duration shutdownTimeout = RelayDefaults.SHUTDOWN_TIMEOUT;

        /** Whether events of one aggregate are published in id order (false: unordered, for throughput). */
        private boolean ordered = true;

        /** Topics published without per-aggregate order even when ordered is true. */
        private Set<String> unorderedTopics = new LinkedHashSet<>();

        /** On PostgreSQL, whether the relay's own transactions commit asynchronously (never the application's). */
        private boolean asyncCommit = true;

        /**
         * Backoff after a failed publication: the first retry waits about this long, each later one twice as long
         * (with jitter, up to {@link #getRetryPolicyCap()}). How many retries an event gets is its own maxRetries.
         */
        private Duration retryPolicyBase = dev.postbox.common.RetryPolicy.DEFAULT_BASE;

        /** The longest backoff between two attempts. */
        private Duration retryPolicyCap = dev.postbox.common.RetryPolicy.DEFAULT_CAP;

        /** On PostgreSQL, whether to LISTEN for writers' notifications and claim at once. */
        private boolean listenForNotifications = true;

        /**
         * Whether the relay measures its clock against the database's and takes over no expired lease while the two
         * differ by more than max-clock-skew. Off only for a settable test clock (postbox-test's @PostboxTest turns it
         * off unless set) or where the operator guarantees synchronized clocks.
         */
        private boolean clockSkewCheck = true;

        /**
         * Largest offset between the relay's clock and the database's at which it still takes over expired leases;
         * less than two thirds of lease-duration. Default: 1s, or a third of the lease if that is less.
         */
        private Duration maxClockSkew;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getInstanceId() {
            return instanceId;
        }

        public void setInstanceId(String instanceId) {
            this.instanceId = instanceId;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        public Duration getLeaseDuration() {
            return leaseDuration;
        }

        public void setLeaseDuration(Duration leaseDuration) {
            this.leaseDuration = leaseDuration;
        }

        public Duration getSendTimeout() {
            return sendTimeout;
        }

        public void setSendTimeout(Duration sendTimeout) {
            this.sendTimeout = sendTimeout;
        }

        public Duration getPollIntervalMin() {
            return pollIntervalMin;
        }

        public void setPollIntervalMin(Duration pollIntervalMin) {
            this.pollIntervalMin = pollIntervalMin;
        }

        public Duration getPollIntervalMax() {
            return pollIntervalMax;
        }

        public void setPollIntervalMax(Duration pollIntervalMax) {
            this.pollIntervalMax = pollIntervalMax;
        }

        public int getPoolSize() {
            return poolSize;
        }

        public void setPoolSize(int poolSize) {
            this.poolSize = poolSize;
        }

        public int getInFlightBatches() {
            return inFlightBatches;
        }

        public void setInFlightBatches(int inFlightBatches) {
            this.inFlightBatches = inFlightBatches;
        }

        public Duration getShutdownTimeout() {
            return shutdownTimeout;
        }

        public void setShutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }

        public boolean isOrdered() {
            return ordered;
        }

        public void setOrdered(boolean ordered) {
            this.ordered = ordered;
        }

        public Set<String> getUnorderedTopics() {
            return unorderedTopics;
        }

        public void setUnorderedTopics(Set<String> unorderedTopics) {
            this.unorderedTopics = unorderedTopics;
        }

        public Duration getRetryPolicyBase() {
            return retryPolicyBase;
        }

        public void setRetryPolicyBase(Duration retryPolicyBase) {
            this.retryPolicyBase = retryPolicyBase;
        }

        public Duration getRetryPolicyCap() {
            return retryPolicyCap;
        }

        public void setRetryPolicyCap(Duration retryPolicyCap) {
            this.retryPolicyCap = retryPolicyCap;
        }

        public boolean isAsyncCommit() {
            return asyncCommit;
        }

        public void setAsyncCommit(boolean asyncCommit) {
            this.asyncCommit = asyncCommit;
        }

        public boolean isListenForNotifications() {
            return listenForNotifications;
        }

        public boolean isClockSkewCheck() {
            return clockSkewCheck;
        }

        public void setClockSkewCheck(boolean clockSkewCheck) {
            this.clockSkewCheck = clockSkewCheck;
        }

        public Duration getMaxClockSkew() {
            return maxClockSkew;
        }

        public void setMaxClockSkew(Duration maxClockSkew) {
            this.maxClockSkew = maxClockSkew;
        }

        public void setListenForNotifications(boolean listenForNotifications) {
            this.listenForNotifications = listenForNotifications;
        }
    }

    public static class Worker {

        /** Whether to run the message-event worker (it starts only when there is at least one handler). */
        private boolean enabled = true;

        /** The locked_by of this worker; default host-pid-random. */
        private String instanceId;

        /** Handler threads (1..64). */
        private int threads = WorkerDefaults.THREADS;

        /** Events claimed per cycle (1..5000). */
        private int batchSize = WorkerDefaults.BATCH_SIZE;

        /** Shortest pause between polls. */
        private Duration pollIntervalMin = WorkerDefaults.POLL_MIN;

        /** Longest pause between polls when idle. */
        private Duration pollIntervalMax = WorkerDefaults.POLL_MAX;

        /** How long one handler call may run before it is interrupted and counted as failed. */
        private Duration handlerTimeout = WorkerDefaults.HANDLER_TIMEOUT;

        /** After how long a PROCESSING event is taken to be stuck (its worker died) and is recovered. */
        private Duration stuckTimeout = WorkerDefaults.STUCK_TIMEOUT;

        /** How long shutdown waits for running handlers. */
        private Duration shutdownTimeout = WorkerDefaults.SHUTDOWN_TIMEOUT;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getInstanceId() {
            return instanceId;
        }

        public void setInstanceId(String instanceId) {
            this.instanceId = instanceId;
        }

        public int getThreads() {
            return threads;
        }

        public void setThreads(int threads) {
            this.threads = threads;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        public Duration getPollIntervalMin() {
            return pollIntervalMin;
        }

        public void setPollIntervalMin(Duration pollIntervalMin) {
            this.pollIntervalMin = pollIntervalMin;
        }

        public Duration getPollIntervalMax() {
            return pollIntervalMax;
        }

        public void setPollIntervalMax(Duration pollIntervalMax) {
            this.pollIntervalMax = pollIntervalMax;
        }

        public Duration getHandlerTimeout() {
            return handlerTimeout;
        }

        public void setHandlerTimeout(Duration handlerTimeout) {
            this.handlerTimeout = handlerTimeout;
        }

        public Duration getStuckTimeout() {
            return stuckTimeout;
        }

        public void setStuckTimeout(Duration stuckTimeout) {
            this.stuckTimeout = stuckTimeout;
        }

        public Duration getShutdownTimeout() {
            return shutdownTimeout;
        }

        public void setShutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }
    }

    public static class Compensation {

        /** Whether to start the application's CompensationJob beans on their schedule. */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    public static class ListenersProperties {

        /** Whether to run the application's @PostboxListener methods. */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    public static class EventBusProperties {

        /** Whether to provide the in-process event bus. */
        private boolean enabled = true;

        /** Event channels the relay hands to the in-process event bus. */
        private List<String> channels = new ArrayList<>(List.of(EventBus.CHANNEL));

        /**
         * What becomes of an event routed to the bus that no subscriber receives: DEAD at once with the reason
         * "no subscriber for topic 'X'" (dead), retried with the relay's backoff and DEAD once the retries are
         * used up (retry), or PUBLISHED (discard). Never silently published unless set to discard.
         */
        private EventBus.NoSubscriber whenNoSubscriber = EventBus.NoSubscriber.DEAD;

        public EventBus.NoSubscriber getWhenNoSubscriber() {
            return whenNoSubscriber;
        }

        public void setWhenNoSubscriber(EventBus.NoSubscriber whenNoSubscriber) {
            this.whenNoSubscriber = whenNoSubscriber;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public List<String> getChannels() {
            return channels;
        }

        public void setChannels(List<String> channels) {
            this.channels = channels;
        }
    }

    public static class Metrics {

        /** Whether to register the postbox.* meters when Micrometer is present. */
        private boolean enabled = true;

        /** How often the backlog gauges (counts by status, oldest pending age, dead count) are read from the database. */
        private Duration refreshInterval = Duration.ofSeconds(10);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getRefreshInterval() {
            return refreshInterval;
        }

        public void setRefreshInterval(Duration refreshInterval) {
            this.refreshInterval = refreshInterval;
        }
    }

    public static class Health {

        /** Whether to contribute the postbox health indicator when Actuator is present. */
        private boolean enabled = true;

        /** DOWN when the oldest unfinished event has waited longer than this. */
        private Duration maxOldestPendingAge = Duration.ofMinutes(5);

        /** DOWN when more events than this are DEAD (0: any dead event). */
        private long maxDead = 0;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getMaxOldestPendingAge() {
            return maxOldestPendingAge;
        }

        public void setMaxOldestPendingAge(Duration maxOldestPendingAge) {
            this.maxOldestPendingAge = maxOldestPendingAge;
        }

        public long getMaxDead() {
            return maxDead;
        }

        public void setMaxDead(long maxDead) {
            this.maxDead = maxDead;
        }
    }
    /**
     * {@code postbox.retention.*}: removing finished rows from the Postbox tables (dev.postbox.retention.Retention).
     * Off by default: what is removed and when is the application's decision. Each rule is a Duration; a rule not set
     * removes nothing of its status. Defaults are the core builder's (Retention.Builder).
     */
    public static class RetentionProperties {

        /**
         * Whether to run retention in this application (off by default: removing data is the application's
         * decision). Every instance runs it; a database lease makes one of them the runner at a time.
         */
        private boolean enabled = false;

        private final RetentionOutbox outbox = new RetentionOutbox();
        private final RetentionMessages messages = new RetentionMessages();
        private final RetentionCompensations compensations = new RetentionCompensations();

        /**
         * How long consume-log (inbox) rows are kept: a delivery of the same event after this runs the consumer's
         * work again, so it must be longer than any redelivery (a start-up WARN says so when it is shorter than the
         * relay's retry horizon). Unset: never removed.
         */
        private Duration consumeLogWindow;

        /**
         * Tables whose removed rows are moved to their *_archive twin instead of deleted: outbox, messages,
         * consume-log, compensations.
         */
        private Set<String> archive = new LinkedHashSet<>();

        /** Rows per primary-key window and per removing transaction (1..10000). */
        private int batchSize = dev.postbox.retention.Retention.Builder.DEFAULT_BATCH_SIZE;

        /** Rows one run removes at most (1..1000000000); a run that stops at it is followed by the next at once. */
        private long maxRowsPerRun = dev.postbox.retention.Retention.Builder.DEFAULT_MAX_ROWS_PER_RUN;

        /** How long one run may take before it stops at the next window (1s..24h). */
        private Duration maxRunTime = dev.postbox.retention.Retention.Builder.DEFAULT_MAX_RUN_TIME;

        /** How long a statement waits for a row lock before the batch gives way to writers (100ms..60s). */
        private Duration lockTimeout = dev.postbox.retention.Retention.Builder.DEFAULT_LOCK_TIMEOUT;

        /** How long one statement may run (1s..10m). */
        private Duration statementTimeout = dev.postbox.retention.Retention.Builder.DEFAULT_STATEMENT_TIMEOUT;

        /** Time between scheduled runs (1s..24h). */
        private Duration interval = dev.postbox.retention.Retention.Builder.DEFAULT_INTERVAL;

        /**
         * Share of a run's time spent in removing transactions (0.05..1): after a batch that took t the run
         * pauses t * (1 - duty-cycle) / duty-cycle, so writers and relays get the database between batches.
         * Unset: 0.5 for deleted tables, 0.25 for archived ones.
         */
        private Double dutyCycle;

        /** The owner of the retention lease while this instance runs, unique per process; default host-pid-random. */
        private String instanceId;

        /**
         * With postbox.retention.outbox.strategy=partitions: how far ahead of the database's clock each run creates
         * the outbox's partitions (1h..366d). A write with no partition for its time fails, so this is how long
         * retention may be down before writes fail.
         */
        private Duration partitionsAhead = dev.postbox.retention.Retention.Builder.DEFAULT_PARTITIONS_AHEAD;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public RetentionOutbox getOutbox() {
            return outbox;
        }

        public RetentionMessages getMessages() {
            return messages;
        }

        public RetentionCompensations getCompensations() {
            return compensations;
        }

        public Duration getConsumeLogWindow() {
            return consumeLogWindow;
        }

        public void setConsumeLogWindow(Duration consumeLogWindow) {
            this.consumeLogWindow = consumeLogWindow;
        }

        public Set<String> getArchive() {
            return archive;
        }

        public void setArchive(Set<String> archive) {
            this.archive = archive;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        public long getMaxRowsPerRun() {
            return maxRowsPerRun;
        }

        public void setMaxRowsPerRun(long maxRowsPerRun) {
            this.maxRowsPerRun = maxRowsPerRun;
        }

        public Duration getMaxRunTime() {
            return maxRunTime;
        }

        public void setMaxRunTime(Duration maxRunTime) {
            this.maxRunTime = maxRunTime;
        }

        public Duration getLockTimeout() {
            return lockTimeout;
        }

        public void setLockTimeout(Duration lockTimeout) {
            this.lockTimeout = lockTimeout;
        }

        public Duration getStatementTimeout() {
            return statementTimeout;
        }

        public void setStatementTimeout(Duration statementTimeout) {
            this.statementTimeout = statementTimeout;
        }

        public Duration getInterval() {
            return interval;
        }

        public Double getDutyCycle() {
            return dutyCycle;
        }

        public void setDutyCycle(Double dutyCycle) {
            this.dutyCycle = dutyCycle;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public String getInstanceId() {
            return instanceId;
        }

        public void setInstanceId(String instanceId) {
            this.instanceId = instanceId;
        }

        public Duration getPartitionsAhead() {
            return partitionsAhead;
        }

        public void setPartitionsAhead(Duration partitionsAhead) {
            this.partitionsAhead = partitionsAhead;
        }
    }

    /**
     * {@code postbox.retention.outbox.*}: how long finished outbox events are kept, per status (unset: never removed),
     * and how they are removed.
     */
    public static class RetentionOutbox {

        /** How long PUBLISHED outbox events are kept; unset: never removed. */
        private Duration published;

        /** How long CANCELLED outbox events are kept; unset: never removed. */
        private Duration cancelled;

        /**
         * How long DEAD outbox events are kept; unset: never removed (one still holding back a later event of its
         * aggregate is kept anyway).
         */
        private Duration dead;

        /**
         * How removed outbox rows leave the outbox: delete (batched deletes), archive (moved to its *_archive twin,
         * like postbox.retention.archive=outbox), or partitions (on a database with time partitions, PostgreSQL, not
         * H2: the outbox in its time-partitioned variant, whole partitions dropped once older than
         * postbox.retention.outbox.published, which it needs; an empty outbox is converted at start-up, one holding
         * rows fails the start-up).
         */
        private RetentionPolicy.Strategy strategy = RetentionPolicy.Strategy.DELETE;

        /** Whether strategy was set (a contradiction with postbox.retention.archive fails; the default gives way). */
        private boolean strategySet;

        /**
         * With strategy partitions: the width of each partition when the starter converts the outbox (whole hours
         * that divide a day, or whole days up to 31). An outbox already partitioned keeps the width it has.
         */
        private Duration partitionInterval = OutboxPartitions.DEFAULT_INTERVAL;

        /**
         * With strategy partitions: the idempotency window the starter converts the outbox with (an event_no written
         * less than this long ago is a duplicate; 1h..366d); unset: postbox.retention.outbox.published, at least 7
         * days. It bounds postbox.retention.outbox.published: an outbox converted with a shorter one fails the
         * start-up naming that property. An outbox already partitioned keeps the window it has.
         */
        private Duration idempotencyWindow;

        public Duration getIdempotencyWindow() {
            return idempotencyWindow;
        }

        public void setIdempotencyWindow(Duration idempotencyWindow) {
            this.idempotencyWindow = idempotencyWindow;
        }

        public Duration getPublished() {
            return published;
        }

        public void setPublished(Duration published) {
            this.published = published;
        }

        public Duration getCancelled() {
            return cancelled;
        }

        public void setCancelled(Duration cancelled) {
            this.cancelled = cancelled;
        }

        public Duration getDead() {
            return dead;
        }

        public void setDead(Duration dead) {
            this.dead = dead;
        }

        public RetentionPolicy.Strategy getStrategy() {
            return strategy;
        }

        public void setStrategy(RetentionPolicy.Strategy strategy) {
            this.strategy = strategy;
            this.strategySet = true;
        }

        /** Whether {@link #setStrategy} was called (the property was given), as opposed to the default. */
        boolean strategySet() {
            return strategySet;
        }

        public Duration getPartitionInterval() {
            return partitionInterval;
        }

        public void setPartitionInterval(Duration partitionInterval) {
            this.partitionInterval = partitionInterval;
        }
    }

    /** {@code postbox.retention.messages.*}: how long finished message events are kept, per status. */
    public static class RetentionMessages {

        /** How long SUCCEEDED message events are kept; unset: never removed. */
        private Duration succeeded;

        /** How long CANCELLED message events are kept; unset: never removed. */
        private Duration cancelled;

        /** How long DEAD message events are kept; unset: never removed. */
        private Duration dead;

        public Duration getSucceeded() {
            return succeeded;
        }

        public void setSucceeded(Duration succeeded) {
            this.succeeded = succeeded;
        }

        public Duration getCancelled() {
            return cancelled;
        }

        public void setCancelled(Duration cancelled) {
            this.cancelled = cancelled;
        }

        public Duration getDead() {
            return dead;
        }

        public void setDead(Duration dead) {
            this.dead = dead;
        }
    }

    /** {@code postbox.retention.compensations.*}: how long finished compensation-log rows are kept, per status. */
    public static class RetentionCompensations {

        /**
         * How long DONE compensation-log rows are kept; unset: never removed. After removal the guard forgets the
         * key, so the same compensation could run again.
         */
        private Duration done;

        /** How long FAILED compensation-log rows are kept; unset: never removed. */
        private Duration failed;

        public Duration getDone() {
            return done;
        }

        public void setDone(Duration done) {
            this.done = done;
        }

        public Duration getFailed() {
            return failed;
        }

        public void setFailed(Duration failed) {
            this.failed = failed;
        }
    }
}
