package dev.postbox.query;

import dev.postbox.common.ValidationException;
import dev.postbox.outbox.OutboxStatus;

import java.time.Instant;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * A search of the outbox as a person types it: qualifiers, every one of which must hold, and at most one bare
 * word, the aggregate (business) id, e.g. an order number:
 *
 * <pre>
 *   ORD-1042                         aggregate id (of any aggregate type)
 *   aggregate:ORDER/ORD-1042         aggregate type and id
 *   event_no:E-77  trace:4bf92f35    idempotency key, trace id
 *   type:ORDER_PAID  topic:orders  channel:MQ
 *   status:dead,failed               one or more statuses
 *   after:2026-12-01  before:2026-12-02T06:00:00Z  after:2h   created in that range (a duration: that long ago)
 *   error:"connection refused"       text of the last failure, case-insensitive
 *   attempts>=3                      failed attempts so far
 * </pre>
 *
 * Values with spaces are quoted ({@code "..."}, a {@code \"} inside). A bad qualifier fails with a
 * {@link ValidationException} naming it and what it accepts. Null fields are "any".
 */
public record SearchQuery(String eventNo, String aggregateType, String aggregateId, String traceId, String eventType,
                          Set<OutboxStatus> statuses, String topic, String channel, Instant createdFrom,
                          Instant createdBefore, String errorText, Integer minAttempts) {

    /** The longest search text accepted. */
    public static final int MAX_LENGTH = 2000;

    public SearchQuery {
        statuses = statuses == null || statuses.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(statuses));
        SearchText.checkRange(createdFrom, createdBefore);
    }

    /** Every condition of {@code text}; relative times ({@code after:2h}) count back from {@code now}. */
    public static SearchQuery parse(String text, Instant now) {
        SearchText.Terms t = SearchText.parse(text, now, SearchText.Language.OUTBOX);
        Set<OutboxStatus> statuses = EnumSet.noneOf(OutboxStatus.class);
        t.statuses.forEach(name -> statuses.add(OutboxStatus.valueOf(name)));
        return new SearchQuery(t.eventNo, t.keyType, t.key, t.traceId, t.eventType, statuses, t.topic, t.channel,
                t.from, t.before, t.error, t.attempts);
    }

    /** Whether {@code status} is allowed by this search (every status when none is given). */
    boolean allows(OutboxStatus status) {
        return statuses.isEmpty() || statuses.contains(status);
    }

    /** The search written back in its canonical form (what {@link #parse} reads as this search). */
    @Override
    public String toString() {
        return SearchText.write(SearchText.Language.OUTBOX, aggregateType, aggregateId, eventNo, traceId, eventType,
                statuses.stream().sorted().map(s -> s.name().toLowerCase(Locale.ROOT)).toList(), topic, channel,
                createdFrom, createdBefore, errorText, minAttempts);
    }
}
