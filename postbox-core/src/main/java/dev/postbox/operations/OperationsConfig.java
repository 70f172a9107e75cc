package dev.postbox.operations;

import dev.postbox.common.ValidationException;
import dev.postbox.internal.Check;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * How {@link Operations} behaves. Immutable: each {@code with}-style method returns a changed copy.
 *
 * @param overviewTtl            how long an overview is served from cache (1 s .. 10 min; default 5 s)
 * @param aliveWithin            a relay or worker whose last heartbeat is older counts as gone (1 s .. 1 day;
 *                               default 60 s)
 * @param oldestPendingThreshold an unfinished event older than this is a problem (1 s .. 30 days; default 5 min)
 * @param previewTtl             how long a bulk dry run's token is accepted (10 s .. 1 day; default 10 min)
 * @param readOnly               refuse every change, whatever the operator's permissions (revealing a payload,
 *                               which changes no event, stays allowed to who may)
 * @param redactor               applied to every revealed payload; null: {@link PayloadRedactor#none()}
 * @param ordered                whether the relays publish each aggregate's events in order (default true, as
 *                               {@code RelayBuilder.ordered}): only then can an aggregate be blocked
 * @param unorderedTopics        the relays' {@code RelayBuilder.unorderedTopics}: events of these topics neither
 *                               wait nor block, so the console counts them as the relay does (default none)
 */
public record OperationsConfig(Duration overviewTtl, Duration aliveWithin, Duration oldestPendingThreshold,
                               Duration previewTtl, boolean readOnly, PayloadRedactor redactor, boolean ordered,
                               Set<String> unorderedTopics) {

    /** Default {@link #overviewTtl()}. */
    public static final Duration DEFAULT_OVERVIEW_TTL = Duration.ofSeconds(5);
    /** Default {@link #aliveWithin()}. */
    public static final Duration DEFAULT_ALIVE_WITHIN = Duration.ofSeconds(60);
    /** Default {@link #oldestPendingThreshold()}. */
    public static final Duration DEFAULT_OLDEST_PENDING_THRESHOLD = Duration.ofMinutes(5);
    /** Default {@link #previewTtl()}. */
    public static final Duration DEFAULT_PREVIEW_TTL = Duration.ofMinutes(10);

    public OperationsConfig {
        range("overviewTtl", overviewTtl, Duration.ofSeconds(1), Duration.ofMinutes(10));
        range("aliveWithin", aliveWithin, Duration.ofSeconds(1), Duration.ofDays(1));
        range("oldestPendingThreshold", oldestPendingThreshold, Duration.ofSeconds(1), Duration.ofDays(30));
        range("previewTtl", previewTtl, Duration.ofSeconds(10), Duration.ofDays(1));
        redactor = redactor == null ? PayloadRedactor.none() : redactor;
        Set<String> topics = new LinkedHashSet<>();
        for (String t : unorderedTopics == null ? Set.<String>of() : unorderedTopics) {
            topics.add(Check.key("unorderedTopics", t, 128));
        }
        unorderedTopics = java.util.Collections.unmodifiableSet(topics);
    }

    /** The settings before {@link #ordered()} and {@link #unorderedTopics()} existed: ordered, no unordered topic. */
    public OperationsConfig(Duration overviewTtl, Duration aliveWithin, Duration oldestPendingThreshold,
                            Duration previewTtl, boolean readOnly, PayloadRedactor redactor) {
        this(overviewTtl, aliveWithin, oldestPendingThreshold, previewTtl, readOnly, redactor, true, Set.of());
    }

    /** Every default: 5 s cache, 60 s liveness, 5 min pending threshold, 10 min tokens, writable, no redaction, ordered. */
    public static OperationsConfig defaults() {
        return new OperationsConfig(DEFAULT_OVERVIEW_TTL, DEFAULT_ALIVE_WITHIN, DEFAULT_OLDEST_PENDING_THRESHOLD,
                DEFAULT_PREVIEW_TTL, false, PayloadRedactor.none(), true, Set.of());
    }

    public OperationsConfig overviewTtl(Duration d) {
        return new OperationsConfig(d, aliveWithin, oldestPendingThreshold, previewTtl, readOnly, redactor, ordered,
                unorderedTopics);
    }

    public OperationsConfig aliveWithin(Duration d) {
        return new OperationsConfig(overviewTtl, d, oldestPendingThreshold, previewTtl, readOnly, redactor, ordered,
                unorderedTopics);
    }

    public OperationsConfig oldestPendingThreshold(Duration d) {
        return new OperationsConfig(overviewTtl, aliveWithin, d, previewTtl, readOnly, redactor, ordered, unorderedTopics);
    }

    public OperationsConfig previewTtl(Duration d) {
        return new OperationsConfig(overviewTtl, aliveWithin, oldestPendingThreshold, d, readOnly, redactor, ordered,
                unorderedTopics);
    }

    public OperationsConfig readOnly(boolean b) {
        return new OperationsConfig(overviewTtl, aliveWithin, oldestPendingThreshold, previewTtl, b, redactor, ordered,
                unorderedTopics);
    }

    public OperationsConfig redactor(PayloadRedactor r) {
        return new OperationsConfig(overviewTtl, aliveWithin, oldestPendingThreshold, previewTtl, readOnly, r, ordered,
                unorderedTopics);
    }

    /** As the relays are configured: {@code false} when they run {@code ordered(false)}. */
    public OperationsConfig ordered(boolean b) {
        return new OperationsConfig(overviewTtl, aliveWithin, oldestPendingThreshold, previewTtl, readOnly, redactor, b,
                unorderedTopics);
    }

    /** As the relays are configured ({@code RelayBuilder.unorderedTopics}). */
    public OperationsConfig unorderedTopics(Set<String> topics) {
        return new OperationsConfig(overviewTtl, aliveWithin, oldestPendingThreshold, previewTtl, readOnly, redactor,
                ordered, topics);
    }

    private static void range(String field, Duration d, Duration min, Duration max) {
        if (d == null) {
            throw new ValidationException(field, "is required (" + min + " .. " + max + ")");
        }
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new ValidationException(field, "must be between " + min + " and " + max + " (was " + d + ")");
        }
    }
}
