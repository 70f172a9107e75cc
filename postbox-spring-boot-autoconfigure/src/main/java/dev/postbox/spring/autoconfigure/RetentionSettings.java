package dev.postbox.spring.autoconfigure;

import dev.postbox.Postbox;
import dev.postbox.common.PostboxDefaults;
import dev.postbox.common.RetryPolicy;
import dev.postbox.common.ValidationException;
import dev.postbox.compensation.CompensationStatus;
import dev.postbox.message.MessageStatus;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.retention.OutboxPartitions;
import dev.postbox.retention.Retention;
import dev.postbox.retention.RetentionPolicy;
import dev.postbox.retention.RetentionTable;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * {@code postbox.retention.*} to the core's {@link RetentionPolicy} and {@link Retention.Builder}, with every
 * {@link ValidationException} reported under the property the user wrote; and the inbox-safety check of the
 * consume-log window against the relay's retry horizon. For the auto-configuration; not an application API.
 */
final class RetentionSettings {

    static final String PREFIX = "postbox.retention.";

    /** The outbox's strategy property. */
    static final String STRATEGY = PREFIX + "outbox.strategy";

    private static final Logger log = LoggerFactory.getLogger(RetentionSettings.class);

    private RetentionSettings() {
    }

    /** The table's name in {@code postbox.retention.archive} and in the meters' {@code table} tag. */
    static String name(RetentionTable table) {
        return PropertyErrors.kebab(table.field());
    }

    /** The table named {@code name} (outbox, messages, consume-log, compensations), else a ValidationException. */
    static RetentionTable table(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        return Arrays.stream(RetentionTable.values()).filter(t -> name(t).equals(n)).findFirst()
                .orElseThrow(() -> new ValidationException(PREFIX + "archive", "unknown table '" + name + "'; one of "
                        + Arrays.stream(RetentionTable.values()).map(RetentionSettings::name)
                        .collect(Collectors.joining(", "))));
    }

    /** The core's field ({@code outbox.PUBLISHED}, {@code consumeLog.window}, {@code batchSize}) as its property. */
    static String property(String field) {
        if (field.startsWith("postbox.")) {
            return field;
        }
        if (field.equals(RetentionTable.CONSUME_LOG.field() + ".window")) {
            return PREFIX + "consume-log-window";
        }
        int dot = field.indexOf('.');
        if (dot > 0) {
            return PREFIX + PropertyErrors.kebab(field.substring(0, dot)) + "."
                    + field.substring(dot + 1).toLowerCase(Locale.ROOT).replace('_', '-');
        }
        return PREFIX + PropertyErrors.kebab(field);
    }

    /** The policy the properties describe; a ValidationException names the property, and the policy must have a rule. */
    static RetentionPolicy policy(PostboxProperties.RetentionProperties r) {
        return PropertyErrors.renamed(RetentionSettings::property, () -> {
            RetentionPolicy.Builder b = RetentionPolicy.builder();
            rule(r.getOutbox().getPublished(), d -> b.outbox(OutboxStatus.PUBLISHED, d));
            rule(r.getOutbox().getCancelled(), d -> b.outbox(OutboxStatus.CANCELLED, d));
            rule(r.getOutbox().getDead(), d -> b.outbox(OutboxStatus.DEAD, d));
            rule(r.getMessages().getSucceeded(), d -> b.messages(MessageStatus.SUCCEEDED, d));
            rule(r.getMessages().getCancelled(), d -> b.messages(MessageStatus.CANCELLED, d));
            rule(r.getMessages().getDead(), d -> b.messages(MessageStatus.DEAD, d));
            rule(r.getConsumeLogWindow(), b::consumeLog);
            rule(r.getCompensations().getDone(), d -> b.compensations(CompensationStatus.DONE, d));
            rule(r.getCompensations().getFailed(), d -> b.compensations(CompensationStatus.FAILED, d));
            if (r.getArchive() != null) {
                r.getArchive().forEach(name -> b.archive(table(name)));
            }
            RetentionPolicy.Strategy outbox = outboxStrategy(r);
            if (outbox == RetentionPolicy.Strategy.ARCHIVE) {
                b.archive(RetentionTable.OUTBOX);
            } else if (outbox == RetentionPolicy.Strategy.PARTITIONS) {
                if (r.getOutbox().getPublished() == null) {
                    throw new ValidationException(PREFIX + "outbox.published", "must be set with " + STRATEGY
                            + "=partitions: a partition is dropped once its whole range is older than the PUBLISHED"
                            + " retention");
                }
                b.partitions(RetentionTable.OUTBOX);
            }
            RetentionPolicy policy = b.build();
            if (policy.rules().isEmpty()) {
                throw new ValidationException("postbox.retention", "is enabled but has no rule, so it would remove"
                        + " nothing: set at least one of postbox.retention.outbox.published|cancelled|dead,"
                        + " messages.succeeded|cancelled|dead, consume-log-window, compensations.done|failed,"
                        + " or set postbox.retention.enabled=false");
            }
            return policy;
        });
    }

    /**
     * The outbox's strategy: {@code postbox.retention.outbox.strategy}, or archive when {@code postbox.retention.archive}
     * names the outbox; both given and different is a ValidationException naming both.
     */
    static RetentionPolicy.Strategy outboxStrategy(PostboxProperties.RetentionProperties r) {
        boolean archived = r.getArchive() != null
                && r.getArchive().stream().anyMatch(name -> table(name) == RetentionTable.OUTBOX);
        RetentionPolicy.Strategy strategy = r.getOutbox().getStrategy() == null ? RetentionPolicy.Strategy.DELETE
                : r.getOutbox().getStrategy();
        if (archived && r.getOutbox().strategySet() && strategy != RetentionPolicy.Strategy.ARCHIVE) {
            throw new ValidationException(STRATEGY, "is " + strategyName(strategy) + " but " + PREFIX + "archive names"
                    + " outbox, which means strategy archive: set one of the two, or make them agree");
        }
        return archived ? RetentionPolicy.Strategy.ARCHIVE : strategy;
    }

    /** A strategy as the property spells it: delete, archive, partitions. */
    static String strategyName(RetentionPolicy.Strategy strategy) {
        return strategy.name().toLowerCase(Locale.ROOT);
    }

    private static void rule(Duration keep, Consumer<Duration> add) {
        if (keep != null) {
            add.accept(keep);
        }
    }

    /** The retention the properties describe, built (its pool opened) but not started. */
    static Retention build(Postbox postbox, PostboxProperties.RetentionProperties r) {
        RetentionPolicy policy = policy(r);
        Retention retention = PropertyErrors.renamed(RetentionSettings::property, () -> {
            Retention.Builder b = postbox.retention(policy)
                    .batchSize(r.getBatchSize())
                    .maxRowsPerRun(r.getMaxRowsPerRun())
                    .maxRunTime(r.getMaxRunTime())
                    .lockTimeout(r.getLockTimeout())
                    .statementTimeout(r.getStatementTimeout())
                    .interval(r.getInterval());
            if (r.getInstanceId() != null) {
                b.instanceId(r.getInstanceId());
            }
            if (r.getDutyCycle() != null) {
                b.dutyCycle(r.getDutyCycle());
            }
            b.partitionsAhead(r.getPartitionsAhead());
            return b.build();
        });
        if (policy.strategy(RetentionTable.OUTBOX) == RetentionPolicy.Strategy.PARTITIONS) {
            try {
                partitioned(postbox.outboxPartitions(), r);
            } catch (RuntimeException | Error e) {
                retention.close();
                throw e;
            }
        }
        return retention;
    }

    /**
     * With strategy partitions: converts the outbox to its time-partitioned variant unless it already is one, with
     * postbox.retention.outbox.partition-interval and postbox.retention.partitions-ahead. The core's checks name the
     * property: a bad interval or runway, and an outbox that holds rows (then nothing is changed).
     */
    static void partitioned(OutboxPartitions partitions, PostboxProperties.RetentionProperties r) {
        Duration interval = r.getOutbox().getPartitionInterval();
        Duration ahead = r.getPartitionsAhead();
        Duration published = r.getOutbox().getPublished();
        Duration window = r.getOutbox().getIdempotencyWindow();
        if (window == null) {
            window = published != null && published.compareTo(OutboxPartitions.DEFAULT_IDEMPOTENCY_WINDOW) > 0 ? published
                    : OutboxPartitions.DEFAULT_IDEMPOTENCY_WINDOW;
        }
        boolean was = partitions.partitioned();
        try {
            // validates the values first; does nothing when the outbox already is partitioned
            partitions.convert(interval, ahead, window, null);
        } catch (ValidationException e) {
            String problem = e.getMessage().substring(e.field().length() + 2);
            ValidationException renamed = switch (e.field()) {
                case "interval" -> new ValidationException(PREFIX + "outbox.partition-interval", problem);
                case "ahead" -> new ValidationException(PREFIX + "partitions-ahead", problem);
                case "idempotencyWindow" -> new ValidationException(PREFIX + "outbox.idempotency-window", problem);
                case "outbox" -> new ValidationException(STRATEGY, "partitions needs the outbox in its"
                        + " time-partitioned variant, which the starter converts it to at start-up, but the outbox must be"
                        + " empty to be converted (" + problem + "); nothing was changed: until the outbox is empty use"
                        + " strategy delete or archive");
                default -> new ValidationException(property(e.field()), problem);
            };
            renamed.setStackTrace(e.getStackTrace());
            throw renamed;
        }
        if (!was) {
            log.info("Postbox retention: converted the outbox to its time-partitioned variant (partitions of {}, {} ahead,"
                    + " idempotency window {})", interval, ahead, window);
        }
        Duration has = partitions.idempotencyWindow();
        if (published != null && has != null && published.compareTo(has) > 0) {
            throw new ValidationException(PREFIX + "outbox.published", "must be at most " + has + " for this partitioned"
                    + " outbox (was " + published + "): its event_nos stay known for " + has + ", the idempotency window"
                    + " it was converted with; a longer retention needs the outbox converted again with"
                    + " postbox.retention.outbox.idempotency-window");
        }
    }

    /**
     * The relay's retry horizon for an event: from its first attempt to its last one, each delay at its longest
     * (the jitter of {@link RetryPolicy#exponential()} is 50..100%), plus one relay lease (a relay that died
     * mid-publish hands the event over after it). The core exposes no upper bound of a {@link RetryPolicy}, so
     * this follows the documented default: {@code min(cap, base * 2^(n-1))} after the n-th failure.
     *
     * @param maxRetries retries after the first attempt
     */
    static Duration retryHorizon(int maxRetries, Duration base, Duration cap, Duration lease) {
        Duration sum = Duration.ZERO;
        for (int n = 1; n <= maxRetries; n++) {
            Duration full = cap;
            if (n - 1 < 40) {
                Duration d = base.multipliedBy(1L << (n - 1));
                if (d.compareTo(cap) < 0) {
                    full = d;
                }
            }
            sum = sum.plus(full);
        }
        return sum.plus(lease);
    }

    /** {@link #retryHorizon} of the default retry policy and the default retries of an outbox event. */
    static Duration defaultRetryHorizon(Duration relayLease) {
        return retryHorizon(PostboxDefaults.OUTBOX_MAX_RETRIES, RetryPolicy.DEFAULT_BASE, RetryPolicy.DEFAULT_CAP,
                relayLease);
    }

    /**
     * The WARN for a consume-log window shorter than the relay's retry horizon, or empty when the window is unset or
     * long enough. Package-private for the tests.
     */
    static Optional<String> consumeLogWindowWarning(Duration window, Duration relayLease) {
        if (window == null) {
            return Optional.empty();
        }
        Duration horizon = defaultRetryHorizon(relayLease);
        if (window.compareTo(horizon) >= 0) {
            return Optional.empty();
        }
        return Optional.of("postbox.retention.consume-log-window (" + window + ") is shorter than the relay's retry"
                + " horizon (" + horizon + ": " + PostboxDefaults.OUTBOX_MAX_RETRIES + " retries of an outbox event"
                + " under the default exponential backoff, " + RetryPolicy.DEFAULT_BASE + " doubling, capped at "
                + RetryPolicy.DEFAULT_CAP + ", at their longest, plus the relay lease postbox.relay.lease-duration "
                + relayLease + "): a redelivery after the window would run the consumer's work twice; make the window"
                + " longer than the longest time a message may be redelivered");
    }
}
