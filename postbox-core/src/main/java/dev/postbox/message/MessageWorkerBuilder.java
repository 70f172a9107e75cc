package dev.postbox.message;

import dev.postbox.common.RetryPolicy;
import dev.postbox.common.ValidationException;
import dev.postbox.internal.Check;
import dev.postbox.internal.Settings;
import dev.postbox.internal.poll.Heartbeat;
import dev.postbox.spi.ErrorClassifier;

import javax.sql.DataSource;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Configures a {@link MessageWorker}; obtained from {@code postbox.worker()}. {@link #build()} validates
 * every setting (naming the one that is wrong) and freezes it: the worker keeps an immutable copy
 * ({@link WorkerConfig}), never this builder. Not thread-safe.
 */
public final class MessageWorkerBuilder {

    private final Settings settings;
    private String instanceId = "worker-" + ManagementFactory.getRuntimeMXBean().getPid() + "-"
            + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
    private final Map<String, MessageHandler> handlers = new LinkedHashMap<>();
    private final Map<String, AfterMaxRetries> afterMaxRetries = new HashMap<>();
    private final Map<String, RetryPolicy> retryPolicies = new HashMap<>();
    private RetryPolicy retryPolicy = WorkerDefaults.RETRY_POLICY;
    private ErrorClassifier classifier = ErrorClassifier.DEFAULT;
    private int threads = WorkerDefaults.THREADS;
    private int batchSize = WorkerDefaults.BATCH_SIZE;
    private Duration pollMin = WorkerDefaults.POLL_MIN;
    private Duration pollMax = WorkerDefaults.POLL_MAX;
    private Duration handlerTimeout = WorkerDefaults.HANDLER_TIMEOUT;
    private Duration stuckTimeout = WorkerDefaults.STUCK_TIMEOUT;
    private Duration shutdownTimeout = WorkerDefaults.SHUTDOWN_TIMEOUT;
    private DataSource dataSource;
    private WorkerListener listener = WorkerListener.NOOP;
    private Duration heartbeatInterval = WorkerDefaults.HEARTBEAT_INTERVAL;

    /** Made by {@code Postbox#worker()} ({@link Wiring}). */
    MessageWorkerBuilder(Settings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    /**
     * Handles events of {@code eventType} (at most 64 characters) with {@code handler}; after max retries
     * such events go DEAD. The worker claims only the types it has handlers for.
     */
    public MessageWorkerBuilder handler(String eventType, MessageHandler handler) {
        return handler(eventType, handler, AfterMaxRetries.DEAD);
    }

    /** Handles events of {@code eventType}; {@code afterMaxRetries} says what happens once retries are used up. */
    public MessageWorkerBuilder handler(String eventType, MessageHandler handler, AfterMaxRetries afterMaxRetries) {
        Check.key("eventType", eventType, 64);
        this.handlers.put(eventType, Objects.requireNonNull(handler, "handler"));
        this.afterMaxRetries.put(eventType, Objects.requireNonNull(afterMaxRetries, "afterMaxRetries"));
        return this;
    }

    /** Name of this worker in logs and fail reasons; default worker-pid-random. At most 128 characters. */
    public MessageWorkerBuilder instanceId(String instanceId) {
        this.instanceId = instanceId;
        return this;
    }

    /** Threads, each claiming and handling its own batches, 1..64; default {@value WorkerDefaults#THREADS}. */
    public MessageWorkerBuilder threads(int threads) {
        this.threads = threads;
        return this;
    }

    /** Events claimed per cycle, 1..{@value WorkerDefaults#MAX_BATCH_SIZE}; default {@value WorkerDefaults#BATCH_SIZE}. */
    public MessageWorkerBuilder batchSize(int batchSize) {
        this.batchSize = batchSize;
        return this;
    }

    /** Idle polling: {@code min} after an empty cycle, doubling up to {@code max}. Default 10 ms..1 s. */
    public MessageWorkerBuilder pollInterval(Duration min, Duration max) {
        this.pollMin = min;
        this.pollMax = max;
        return this;
    }

    /** Longest run of one handler call; an overrun is interrupted and recorded as a retryable failure. Default 30 s. */
    public MessageWorkerBuilder handlerTimeout(Duration handlerTimeout) {
        this.handlerTimeout = handlerTimeout;
        return this;
    }

    /**
     * How long an event may stay PROCESSING (since its last_handle_time) before any worker recovers it as a
     * failed attempt; at least twice the handler timeout. Default 5 minutes.
     */
    public MessageWorkerBuilder stuckTimeout(Duration stuckTimeout) {
        this.stuckTimeout = stuckTimeout;
        return this;
    }

    /** Backoff after a failure; default {@link RetryPolicy#seed000()} (1 min, 5 min, 30 min, 2 h). */
    public MessageWorkerBuilder retryPolicy(RetryPolicy policy) {
        this.retryPolicy = Objects.requireNonNull(policy, "retryPolicy");
        return this;
    }

    /** Backoff for events of one type, overriding the default policy. */
    public MessageWorkerBuilder retryPolicy(String eventType, RetryPolicy policy) {
        this.retryPolicies.put(Check.key("eventType", eventType, 64), Objects.requireNonNull(policy, "retryPolicy"));
        return this;
    }

    /** Decides RETRY or DEAD for a handler's exception; default {@link ErrorClassifier#DEFAULT}. */
    public MessageWorkerBuilder errorClassifier(ErrorClassifier classifier) {
        this.classifier = Objects.requireNonNull(classifier, "errorClassifier");
        return this;
    }

    /** How long close() lets the handler in progress finish before interrupting it; default 15 s. */
    public MessageWorkerBuilder shutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = shutdownTimeout;
        return this;
    }

    /** Metrics, tracing and alert hooks; default {@link WorkerListener#NOOP}. */
    public MessageWorkerBuilder listener(WorkerListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /**
     * A data source reserved for this worker, used as is and not closed; on MySQL/MariaDB the worker's transactions
     * on it run at READ COMMITTED, as on its own pool (a connection at a stricter level gets it back when the worker
     * returns it). Default: a HikariCP pool of threads + 1 connections opened by the worker on the application's
     * database (copying its settings when it is HikariCP), never the application's own pool.
     */
    public MessageWorkerBuilder dataSource(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        return this;
    }

    /**
     * Time between two heartbeats (100 ms .. 1 min; default 10 s): the worker's row in {@code biz_relay_instance}
     * gets its last-seen time, and a {@code biz_relay_stats} row counts what it handled and failed since the last
     * one, on a daemon thread of its own. A failing heartbeat is logged and tried again; it never stops the worker.
     */
    public MessageWorkerBuilder heartbeatInterval(Duration heartbeatInterval) {
        this.heartbeatInterval = heartbeatInterval;
        return this;
    }

    /** Validates and builds the worker (not started). */
    public MessageWorker build() {
        if (handlers.isEmpty()) {
            throw new ValidationException("handlers", "at least one handler(eventType, handler) is required");
        }
        Check.key("instanceId", instanceId, 128);
        Check.range("threads", threads, 1, 64);
        Check.range("batchSize", batchSize, 1, WorkerDefaults.MAX_BATCH_SIZE);
        positive("pollInterval.min", pollMin);
        positive("pollInterval.max", pollMax);
        positive("handlerTimeout", handlerTimeout);
        positive("stuckTimeout", stuckTimeout);
        positive("shutdownTimeout", shutdownTimeout);
        Check.between("heartbeatInterval", heartbeatInterval, Heartbeat.MIN_INTERVAL, Heartbeat.MAX_INTERVAL);
        if (pollMax.compareTo(pollMin) < 0) {
            throw new ValidationException("pollInterval.max", "must be at least pollInterval.min " + pollMin
                    + " (was " + pollMax + ")");
        }
        if (stuckTimeout.compareTo(handlerTimeout.multipliedBy(2)) < 0) {
            throw new ValidationException("stuckTimeout", "must be at least twice handlerTimeout " + handlerTimeout
                    + " (was " + stuckTimeout + "), or events still being handled would be recovered as stuck");
        }
        return new MessageWorker(settings, config());
    }

    /** The validated settings the worker keeps, so that changing this builder later cannot change a built worker. */
    private WorkerConfig config() {
        return new WorkerConfig(instanceId, handlers, afterMaxRetries, retryPolicies, retryPolicy, classifier, threads,
                batchSize, pollMin, pollMax, handlerTimeout, stuckTimeout, shutdownTimeout, dataSource, listener,
                heartbeatInterval);
    }

    /** Builds and starts the worker. */
    public MessageWorker start() {
        return build().start();
    }

    private static void positive(String field, Duration d) {
        Check.positive(field, d);
    }
}
