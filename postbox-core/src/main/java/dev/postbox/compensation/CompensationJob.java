package dev.postbox.compensation;

import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.ValidationException;
import dev.postbox.internal.Check;
import dev.postbox.internal.Settings;
import dev.postbox.internal.poll.PollLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Seed 003's compensation job: a <b>scan</b> finds the business keys that need compensating (e.g. orders
 * still CREATED after their timeout), and the <b>action</b> runs for each key in its own transaction,
 * guarded by {@link Compensations#once}, so that two jobs (threads or processes) racing over the same
 * keys compensate each key exactly once. The action may write outbox events with
 * {@code postbox.outbox().write(connection, ...)} on the connection it is given: they commit with the
 * compensation or not at all. Built by {@code postbox.compensationJob(bizType, actionType)}.
 *
 * <pre>{@code
 * CompensationJob job = postbox.compensationJob("ORDER", "TIMEOUT_CANCEL")
 *         .scan((c, limit) -> createdOrdersOlderThan(c, Duration.ofMinutes(10), limit))
 *         .action((c, orderNo) -> {
 *             if (cancelIfCreated(c, orderNo)) {               // UPDATE ... WHERE status = 'CREATED'
 *                 postbox.outbox().write(c, orderCancelled(orderNo));
 *             }
 *         })
 *         .build();
 * job.start();                                                  // every 10 s; or job.runOnce()
 * }</pre>
 *
 * A key whose compensation used up its attempts stays FAILED and is skipped by every later run; a scan
 * should leave such keys out (e.g. {@code NOT EXISTS} on the compensation log) so they do not fill its
 * batch. Thread-safe; {@link #close()} stops the schedule after the run in progress.
 */
public final class CompensationJob implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CompensationJob.class);

    /** Default keys per run (seed 003: the top 50 timed-out orders). */
    public static final int DEFAULT_BATCH_SIZE = 50;
    /** Default pause between scheduled runs (seed 003: 10 s). */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);

    /** Finds up to {@code limit} business keys that need the compensation. */
    @FunctionalInterface
    public interface Scan {
        List<String> keys(Connection connection, int limit) throws Exception;
    }

    /** Compensates one key inside the transaction of {@code connection}; throwing undoes its changes. */
    @FunctionalInterface
    public interface KeyAction {
        void run(Connection connection, String bizKey) throws Exception;
    }

    /**
     * What one run did: keys the scan returned, compensated now, found already done, failed (recorded,
     * may run again), given up (attempts used up), and errors (the key's transaction failed as a whole,
     * e.g. a deadlock; it is simply tried again by a later run).
     */
    public record Run(int scanned, int done, int alreadyDone, int failed, int gaveUp, int errors) {
    }

    /** Waiting for the run in progress, however long it takes: close() never returns while it still works. */
    private static final Duration UNTIL_DONE = Duration.ofDays(365L * 100);

    private final Compensations compensations;
    private final JobConfig config;
    private final Object runLock = new Object();
    private final PollLoop loop;
    private final CompensationListener listener;

    private CompensationJob(Compensations compensations, JobConfig config, CompensationListener listener) {
        this.compensations = compensations;
        this.listener = listener;
        this.config = config;
        // one run per turn, then the interval: the first run at once, the same pause after a failed one
        this.loop = new PollLoop("Compensation job " + config.name(),
                "postbox-compensation-" + config.bizType() + "-" + config.actionType(), 1, config.interval(),
                config.interval(), log);
    }

    /** The settings this job was built with (tests). */
    JobConfig config() {
        return config;
    }

    /** The business type whose keys this job compensates, e.g. {@code ORDER}. */
    public String bizType() {
        return config.bizType();
    }

    /** The compensation this job runs, e.g. {@code TIMEOUT_CANCEL}. */
    public String actionType() {
        return config.actionType();
    }

    /** Attempts per key before the key is left to a person. */
    public int maxAttempts() {
        return config.maxAttempts();
    }

    /**
     * Scans once and compensates what it found, on the calling thread, with one connection of the job's
     * data source: the scan in one short transaction, then one transaction per key. Serialized with the
     * schedule.
     */
    public Run runOnce() {
        synchronized (runLock) {
            String job = config.name();
            try (Connection c = config.dataSource().getConnection()) {
                c.setAutoCommit(false);
                List<String> keys = scan(c);
                int done = 0;
                int already = 0;
                int failed = 0;
                int gaveUp = 0;
                int errors = 0;
                for (String key : keys) {
                    try {
                        switch (compensate(c, key).outcome()) {
                            case DONE -> done++;
                            case ALREADY_DONE -> already++;
                            case FAILED -> failed++;
                            case GAVE_UP -> gaveUp++;
                        }
                    } catch (RuntimeException e) {
                        errors++;
                        log.warn("Compensation job {}: key {} not compensated this run: {}", job, key, e.toString());
                        c.rollback(); // a connection that cannot even roll back ends the run
                    }
                }
                Run run = new Run(keys.size(), done, already, failed, gaveUp, errors);
                if (!keys.isEmpty()) {
                    log.info("Compensation job {}: {}", job, run);
                }
                try {
                    listener.ran(this, run);
                } catch (RuntimeException e) {
                    log.warn("Compensation job {}: its listener failed: {}", job, e.toString());
                }
                return run;
            } catch (SQLException e) {
                throw new PostboxSqlException("compensation job " + job, e);
            }
        }
    }

    private List<String> scan(Connection c) throws SQLException {
        List<String> keys;
        try {
            keys = config.scan().keys(c, config.batchSize());
            c.commit();
        } catch (Exception e) {
            c.rollback();
            if (e instanceof RuntimeException r) {
                throw r;
            }
            if (e instanceof SQLException sql) {
                throw sql;
            }
            throw new dev.postbox.common.PostboxException("compensation job " + config.name() + " scan failed: " + e, e);
        }
        if (keys.size() > config.batchSize()) {
            log.warn("Compensation job {}: scan returned {} keys for a limit of {}; using the first {}",
                    config.name(), keys.size(), config.batchSize(), config.batchSize());
            keys = keys.subList(0, config.batchSize());
        }
        return List.copyOf(keys);
    }

    /** One key, traced and in the log context ({@link JobSpans#traced}). */
    private CompensationResult<Void> compensate(Connection c, String key) throws SQLException {
        return JobSpans.traced(config, key, () -> compensateNow(c, key));
    }

    private CompensationResult<Void> compensateNow(Connection c, String key) throws SQLException {
        CompensationResult<Void> r = compensations.once(c, config.bizType(), key, config.actionType(),
                config.maxAttempts(), conn -> {
                    config.action().run(conn, key);
                    return null;
                });
        c.commit();
        if (r.outcome() == CompensationResult.Outcome.FAILED) {
            log.warn("Compensation {}/{}/{} failed (attempt {} of {}): {}", config.bizType(), key, config.actionType(),
                    r.attempts(), config.maxAttempts(), String.valueOf(r.error()));
        }
        return r;
    }

    /** Runs {@link #runOnce()} now and then every interval on a daemon thread; returns this job. */
    public CompensationJob start() {
        loop.start(i -> () -> {
            runOnce();
            return PollLoop.Outcome.NONE;
        });
        return this;
    }

    /** Stops the schedule, waiting for the run in progress to finish. */
    @Override
    public void close() {
        loop.close(UNTIL_DONE, Duration.ZERO);
    }

    /** Configures a {@link CompensationJob}; {@link #build()} validates and freezes it. Not thread-safe. */
    public static final class Builder {
        private final Settings settings;
        private final Compensations compensations;
        private final String bizType;
        private final String actionType;
        private final CompensationListener listener;
        private Scan scan;
        private KeyAction action;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private int maxAttempts = Compensations.DEFAULT_MAX_ATTEMPTS;
        private Duration interval = DEFAULT_INTERVAL;
        private DataSource dataSource;

        /** Made by {@code Postbox#compensationJob} ({@link Wiring}). */
        Builder(Settings settings, Compensations compensations, String bizType, String actionType,
                CompensationListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            this.settings = Objects.requireNonNull(settings, "settings");
            this.compensations = Objects.requireNonNull(compensations, "compensations");
            this.bizType = bizType;
            this.actionType = actionType;
        }

        /** Required: the query for keys needing compensation; it gets its own short transaction and a limit. */
        public Builder scan(Scan scan) {
            this.scan = Objects.requireNonNull(scan, "scan");
            return this;
        }

        /** Required: the compensation of one key, in that key's own transaction. */
        public Builder action(KeyAction action) {
            this.action = Objects.requireNonNull(action, "action");
            return this;
        }

        /** Keys per run, 1..10,000; default {@value #DEFAULT_BATCH_SIZE}. */
        public Builder batchSize(int batchSize) {
            this.batchSize = batchSize;
            return this;
        }

        /** Attempts per key before it is left to a person, 1..1000; default {@value Compensations#DEFAULT_MAX_ATTEMPTS}. */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** Pause between scheduled runs; default 10 s. */
        public Builder interval(Duration interval) {
            this.interval = interval;
            return this;
        }

        /** Where scan and actions get their connections; default the Postbox data source (the application's). */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            return this;
        }

        /** Validates and builds the job (not started). */
        public CompensationJob build() {
            Check.key("bizType", bizType, 64);
            Check.key("actionType", actionType, 64);
            if (scan == null) {
                throw new ValidationException("scan", "is required: the query that finds keys to compensate");
            }
            if (action == null) {
                throw new ValidationException("action", "is required: the compensation of one key");
            }
            Check.range("batchSize", batchSize, 1, 10_000);
            Check.range("maxAttempts", maxAttempts, 1, 1000);
            if (interval == null || interval.isNegative() || interval.isZero()) {
                throw new ValidationException("interval", "must be a positive duration (was " + interval + ")");
            }
            // the job keeps an immutable copy: later changes to this builder cannot change it
            return new CompensationJob(compensations, new JobConfig(bizType, actionType, scan, action, batchSize,
                    maxAttempts, interval, dataSource != null ? dataSource : settings.dataSource(), settings.tracing()),
                    listener);
        }
    }
}
