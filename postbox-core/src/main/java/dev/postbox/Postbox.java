package dev.postbox;

import dev.postbox.common.PostboxDefaults;
import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.ValidationException;
import dev.postbox.internal.Check;
import dev.postbox.internal.Features;
import dev.postbox.internal.Settings;
import dev.postbox.jdbc.Dialect;
import dev.postbox.jdbc.Schema;
import dev.postbox.jdbc.TableNames;
import dev.postbox.message.MessageEvents;
import dev.postbox.outbox.Outbox;
import dev.postbox.query.Queries;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * The entry point: one instance per application and database, built once and shared by all threads.
 *
 * <pre>{@code
 * Postbox postbox = Postbox.builder(dataSource).source("order-service").build();
 * postbox.schema().install();
 * try (Connection c = dataSource.getConnection()) {
 *     c.setAutoCommit(false);
 *     insertOrder(c, order);                                  // the business change
 *     postbox.outbox().write(c, OutboxEvent.builder()         // the event, same transaction
 *             .eventNo("ORDER_CREATED:" + order.no()).aggregate("ORDER", order.no())
 *             .eventType("ORDER_CREATED").channel("MQ").topic("order.event")
 *             .payload(json).build());
 *     c.commit();
 * }
 * }</pre>
 */
public final class Postbox {

    private static final Logger log = LoggerFactory.getLogger(Postbox.class);

    private final Settings settings;
    private final Outbox outbox;
    private final MessageEvents messages;
    private final Queries queries;
    private final Schema schema;
    private final dev.postbox.admin.Admin admin;
    private final dev.postbox.inbox.Inbox inbox;
    private final dev.postbox.compensation.Compensations compensations;
    private volatile dev.postbox.operations.Operations operations;

    private final dev.postbox.compensation.CompensationListener compensationListener;

    private Postbox(Settings settings, dev.postbox.inbox.InboxListener inboxListener,
                    dev.postbox.compensation.CompensationListener compensationListener) {
        this.settings = settings;
        this.compensationListener = compensationListener;
        this.outbox = Features.make(Outbox.class, settings);
        this.messages = Features.make(MessageEvents.class, settings);
        this.queries = Features.make(Queries.class, settings);
        this.schema = new Schema(settings.dataSource(), settings.dialect(), settings.tables(), settings.clock());
        this.admin = Features.make(dev.postbox.admin.Admin.class, settings);
        this.inbox = Features.make(dev.postbox.inbox.Inbox.class, dev.postbox.inbox.InboxListener.class, settings,
                inboxListener);
        this.compensations = Features.make(dev.postbox.compensation.Compensations.class, settings);
    }

    /** Starts configuring Postbox on {@code dataSource}, the application's own database. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(Objects.requireNonNull(dataSource, "dataSource"));
    }

    /** Writes outbox events in the caller's transaction. */
    public Outbox outbox() {
        return outbox;
    }

    /**
     * Configures a relay that publishes this outbox through {@code publisher} (a {@link dev.postbox.relay.Routes}
     * table, an {@link dev.postbox.relay.EventBus} or a transport's publisher).
     */
    public dev.postbox.relay.RelayBuilder relay(dev.postbox.spi.Publisher publisher) {
        return Features.make(dev.postbox.relay.RelayBuilder.class, dev.postbox.spi.Publisher.class, settings,
                Objects.requireNonNull(publisher, "publisher"));
    }

    /**
     * Tells the relays of this Postbox running in this JVM that events were just committed, so they claim
     * at once instead of at their next poll. Call it after the commit (the Spring starter does, from
     * {@code afterCommit}); calling it before the commit only wastes one claim.
     */
    public void wakeRelays() {
        settings.wakeUps().fire();
    }

    /** Creates message events and moves them through seed 000's state machine. */
    public MessageEvents messages() {
        return messages;
    }

    /**
     * Configures a worker that handles message events with handlers registered per event type, on its own
     * threads and its own small connection pool: {@code postbox.worker().handler("ORDER_PAID", h).start()}.
     */
    public dev.postbox.message.MessageWorkerBuilder worker() {
        return Features.make(dev.postbox.message.MessageWorkerBuilder.class, settings);
    }

    /** The idempotent consumer: runs a consumer's work once per event, in the consumer's transaction. */
    public dev.postbox.inbox.Inbox inbox() {
        return inbox;
    }

    /** The compensation guard: runs each (bizType, bizKey, actionType) compensation to completion once. */
    public dev.postbox.compensation.Compensations compensations() {
        return compensations;
    }

    /**
     * Configures a compensation job for {@code bizType}/{@code actionType} (each at most 64 characters):
     * a scan for keys plus an action per key in its own transaction, guarded by {@link #compensations()}.
     */
    public dev.postbox.compensation.CompensationJob.Builder compensationJob(String bizType, String actionType) {
        return Features.make(dev.postbox.compensation.CompensationJob.Builder.class, Object[].class, settings,
                new Object[] {bizType, actionType, compensationListener});
    }

    /**
     * Configures retention for these tables: finished rows removed after {@code policy}'s retention,
     * deleted or archived in bounded batches ({@link dev.postbox.retention.Retention}).
     */
    public dev.postbox.retention.Retention.Builder retention(dev.postbox.retention.RetentionPolicy policy) {
        return Features.make(dev.postbox.retention.Retention.Builder.class, dev.postbox.retention.RetentionPolicy.class,
                settings, Objects.requireNonNull(policy, "policy"));
    }

    /**
     * The time-partitioned variant of the outbox: converting the empty outbox to it, its partitions and runway
     * ({@link dev.postbox.retention.OutboxPartitions}; PostgreSQL and MariaDB).
     */
    public dev.postbox.retention.OutboxPartitions outboxPartitions() {
        return Features.make(dev.postbox.retention.OutboxPartitions.class, settings);
    }

    /** A person's retry and cancel of outbox events, recorded with who and why. */
    public dev.postbox.admin.Admin admin() {
        return admin;
    }

    /**
     * The operations service with {@link dev.postbox.operations.OperationsConfig#defaults()}: what the console's API,
     * web UI and CLI do (overview, search, event detail, blocked aggregates, audited retries, cancels and bulk actions).
     * One instance per Postbox, made on first use (its overview cache and dry-run tokens are its own).
     */
    public dev.postbox.operations.Operations operations() {
        dev.postbox.operations.Operations o = operations;
        if (o == null) {
            synchronized (this) {
                o = operations;
                if (o == null) {
                    o = operations(dev.postbox.operations.OperationsConfig.defaults());
                    operations = o;
                }
            }
        }
        return o;
    }

    /**
     * A new operations service with {@code config} (read-only, a payload redactor, thresholds): keep it, as its
     * overview cache and the tokens of its dry runs belong to the instance.
     */
    public dev.postbox.operations.Operations operations(dev.postbox.operations.OperationsConfig config) {
        return Features.make(dev.postbox.operations.Operations.class, dev.postbox.operations.OperationsConfig.class,
                settings, Objects.requireNonNull(config, "config"));
    }

    /** Seed 000's queries on both tables. */
    public Queries queries() {
        return queries;
    }

    /** The DDL of this dialect and prefix, and its installer. */
    public Schema schema() {
        return schema;
    }

    /** The tracer given to {@link Builder#tracing}, or {@link dev.postbox.tracing.PostboxTracing#NOOP}. */
    public dev.postbox.tracing.PostboxTracing tracing() {
        return settings.tracing();
    }

    /** The dialect in use (detected or set). */
    public Dialect dialect() {
        return settings.dialect();
    }

    /** The table names in use. */
    public TableNames tables() {
        return settings.tables();
    }

    /** Configuration of a {@link Postbox}; {@link #build()} validates it and freezes it. Not thread-safe. */
    public static final class Builder {
        private final DataSource dataSource;
        private Dialect dialect;
        private String tablePrefix = PostboxDefaults.TABLE_PREFIX;
        private Clock clock = Clock.systemUTC();
        private int maxPayloadBytes = PostboxDefaults.MAX_PAYLOAD_BYTES;
        private int maxHeadersBytes = PostboxDefaults.MAX_HEADERS_BYTES;
        private String source;
        private boolean notifyOnWrite = true;
        private Duration notifyInterval = PostboxDefaults.NOTIFY_INTERVAL;
        private dev.postbox.tracing.PostboxTracing tracing = dev.postbox.tracing.PostboxTracing.NOOP;
        private dev.postbox.inbox.InboxListener inboxListener = dev.postbox.inbox.InboxListener.NOOP;
        private dev.postbox.compensation.CompensationListener compensationListener =
                dev.postbox.compensation.CompensationListener.NOOP;

        private Builder(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        /** The database dialect; default: detected from the data source's metadata at {@link #build()}. */
        public Builder dialect(Dialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /**
         * Prefix of every table name; default {@value PostboxDefaults#TABLE_PREFIX}. A lower-case SQL
         * identifier of at most {@value PostboxDefaults#MAX_TABLE_PREFIX_LENGTH} characters, or empty.
         */
        public Builder tablePrefix(String tablePrefix) {
            this.tablePrefix = tablePrefix;
            return this;
        }

        /** Source of every time Postbox writes and compares; default {@link Clock#systemUTC()}. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Largest payload in UTF-8 bytes; default {@value PostboxDefaults#MAX_PAYLOAD_BYTES} (1 MiB). On
         * MySQL/MariaDB at most {@code (max_allowed_packet - 16 KiB) / 2 - maxHeadersBytes}, checked at
         * {@link #build()}: a driver may double a payload when it escapes it.
         */
        public Builder maxPayloadBytes(int maxPayloadBytes) {
            this.maxPayloadBytes = maxPayloadBytes;
            return this;
        }

        /** Largest header map as JSON in UTF-8 bytes; default {@value PostboxDefaults#MAX_HEADERS_BYTES}. */
        public Builder maxHeadersBytes(int maxHeadersBytes) {
            this.maxHeadersBytes = maxHeadersBytes;
            return this;
        }

        /** Source written into events that name none (e.g. {@code order-service}); default: none. */
        public Builder source(String source) {
            this.source = source;
            return this;
        }

        /**
         * On PostgreSQL, whether each write (or writeAll) also issues one {@code pg_notify} in the same
         * transaction, which PostgreSQL delivers once per transaction at commit and which wakes listening
         * relays within milliseconds. Default true; turn it off for write-heavy workloads where relays
         * polling at their interval is latency enough. Ignored on other databases.
         */
        public Builder notifyOnWrite(boolean notifyOnWrite) {
            this.notifyOnWrite = notifyOnWrite;
            return this;
        }

        /**
         * On PostgreSQL with {@link #notifyOnWrite}, the least time between two NOTIFYs sent by this Postbox's
         * writes; the writes in between send none. Default {@value PostboxDefaults#NOTIFY_INTERVAL_MS} ms, at
         * most 1 s; zero: every write notifies.
         * <p>
         * Why: PostgreSQL commits a transaction that sent NOTIFY under one database-wide lock, held through the
         * commit's WAL flush, so notifying commits run one at a time across the server and cap every writer
         * at about one commit per flush. One NOTIFY per interval wakes the listening relays just as well: they
         * claim until nothing is left and then poll again after their {@code pollMin}, so a write that did not
         * notify is still found within about an interval or a poll. The same-JVM hint
         * ({@link Postbox#wakeRelays()}, sent by the Spring starter after every commit) wakes this JVM's relays
         * at once either way.
         *
         * @throws ValidationException (at {@link #build()}) when negative or above 1 s
         */
        public Builder notifyInterval(Duration notifyInterval) {
            this.notifyInterval = Objects.requireNonNull(notifyInterval, "notifyInterval");
            return this;
        }

        /**
         * The tracer of every write (a {@code create} span whose context is stored in the event's headers and whose
         * trace id fills {@code trace_id} when the event names none) and of the relays, workers, compensation jobs
         * and consumers built from this Postbox; default {@link dev.postbox.tracing.PostboxTracing#NOOP}: no spans,
         * nothing stored. Binding: {@code OpenTelemetryTracing} (postbox-opentelemetry; the starter uses it with the
         * application's {@code OpenTelemetry} bean).
         */
        public Builder tracing(dev.postbox.tracing.PostboxTracing tracing) {
            this.tracing = Objects.requireNonNull(tracing, "tracing");
            return this;
        }

        /**
         * Told of every {@link dev.postbox.inbox.Inbox#once} outcome of this Postbox's inbox (RAN, DUPLICATE,
         * failed), whoever calls it: e.g. postbox-micrometer's meters. Default {@link dev.postbox.inbox.InboxListener#NOOP}.
         */
        public Builder inboxListener(dev.postbox.inbox.InboxListener inboxListener) {
            this.inboxListener = Objects.requireNonNull(inboxListener, "inboxListener");
            return this;
        }

        /**
         * Told of every run of every compensation job built from this Postbox ({@link #compensationJob}), e.g.
         * postbox-micrometer's meters. Default {@link dev.postbox.compensation.CompensationListener#NOOP}.
         */
        public Builder compensationListener(dev.postbox.compensation.CompensationListener compensationListener) {
            this.compensationListener = Objects.requireNonNull(compensationListener, "compensationListener");
            return this;
        }

        /**
         * Validates the settings, detects the dialect and reads the server's statement limit (one
         * connection, also when the dialect is set) and returns the frozen Postbox.
         *
         * @throws ValidationException naming the setting that is out of range, or {@code maxPayloadBytes}
         *                             when an event of that size (with {@code maxHeadersBytes}) would not fit
         *                             one statement of the server (MySQL/MariaDB {@code max_allowed_packet})
         */
        public Postbox build() {
            TableNames tables = new TableNames(tablePrefix);
            if (notifyInterval.isNegative() || notifyInterval.compareTo(Duration.ofSeconds(1)) > 0) {
                throw new ValidationException("notifyInterval", "must be between 0 and 1 s; was " + notifyInterval);
            }
            Check.range("maxPayloadBytes", maxPayloadBytes, 2, 64 * 1024 * 1024);
            Check.range("maxHeadersBytes", maxHeadersBytes, 2, 1024 * 1024);
            if (source != null) {
                Check.key("source", source, 64);
            }
            Dialect d;
            long maxStatementBytes;
            try (Connection c = dataSource.getConnection()) {
                d = dialect != null ? dialect : detect(c);
                maxStatementBytes = d.maxStatementBytes(c);
            } catch (SQLException e) {
                throw new PostboxSqlException("detecting the database dialect and its limits", e);
            }
            checkStatementLimit(maxStatementBytes);
            return new Postbox(new Settings(dataSource, d, tables, clock, maxPayloadBytes,
                    maxHeadersBytes, source, notifyOnWrite && d.notifiesAtCommit(),
                    new dev.postbox.internal.NotifyGate(notifyInterval), new dev.postbox.internal.WakeUps(),
                    maxStatementBytes, tracing), inboxListener, compensationListener);
        }

        /**
         * One event must fit one statement: MySQL/MariaDB close the connection (and the caller's business
         * transaction with it) on a statement above {@code max_allowed_packet}.
         */
        private void checkStatementLimit(long maxStatementBytes) {
            long needed = Settings.statementBytes(maxPayloadBytes, maxHeadersBytes);
            if (needed > maxStatementBytes) {
                throw new ValidationException("maxPayloadBytes", "with maxHeadersBytes=" + maxHeadersBytes
                        + ", an event of maxPayloadBytes=" + maxPayloadBytes + " needs a statement of up to " + needed
                        + " bytes (payload and headers escaped, up to twice their size, plus the other columns), but the"
                        + " server's max_allowed_packet is " + maxStatementBytes + " bytes: lower maxPayloadBytes to at most "
                        + Math.max(0, (maxStatementBytes - Settings.ROW_OVERHEAD_BYTES) / 2 - maxHeadersBytes)
                        + " or raise max_allowed_packet");
            }
        }

        private static Dialect detect(Connection c) throws SQLException {
            Dialect d = Dialect.detect(c);
            var meta = c.getMetaData();
            log.info("Postbox detected {} {} (dialect {})", meta.getDatabaseProductName(),
                    meta.getDatabaseProductVersion(), d.name());
            return d;
        }
    }
}
