package dev.postbox.query;

import dev.postbox.common.ValidationException;
import dev.postbox.message.MessageStatus;

import java.time.Instant;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * A search of the message events as a person types it: the language of {@link SearchQuery} with the business
 * key in place of the aggregate, and without {@code topic:}/{@code channel:} (a message event is handled, not
 * published):
 *
 * <pre>
 *   ORD-1042                         business id (of any business type)
 *   biz:ORDER/ORD-1042               business type and id
 *   event_no:M-77  trace:4bf92f35    idempotency key, trace id
 *   type:ORDER_PAID                  event type
 *   status:dead,failed               one or more of pending, processing, succeeded, failed, cancelled, dead
 *   after:2026-12-01  before:2h      created in that range
 *   error:"timeout"  attempts>=3     text of the last failure (case-insensitive), failed attempts so far
 * </pre>
 *
 * A bad qualifier fails with a {@link ValidationException} naming it; {@code topic:} and {@code channel:} are
 * refused with what to search by instead. Null fields are "any".
 */
public record MessageSearchQuery(String eventNo, String bizType, String bizId, String traceId, String eventType,
                                 Set<MessageStatus> statuses, Instant createdFrom, Instant createdBefore,
                                 String errorText, Integer minAttempts) {

    public MessageSearchQuery {
        statuses = statuses == null || statuses.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(statuses));
        SearchText.checkRange(createdFrom, createdBefore);
    }

    /** Every condition of {@code text}; relative times ({@code after:2h}) count back from {@code now}. */
    public static MessageSearchQuery parse(String text, Instant now) {
        SearchText.Terms t = SearchText.parse(text, now, SearchText.Language.MESSAGE);
        Set<MessageStatus> statuses = EnumSet.noneOf(MessageStatus.class);
        t.statuses.forEach(name -> statuses.add(MessageStatus.valueOf(name)));
        return new MessageSearchQuery(t.eventNo, t.keyType, t.key, t.traceId, t.eventType, statuses, t.from, t.before,
                t.error, t.attempts);
    }

    /** Whether {@code status} is allowed by this search (every status when none is given). */
    boolean allows(MessageStatus status) {
        return statuses.isEmpty() || statuses.contains(status);
    }

    /** The search written back in its canonical form (what {@link #parse} reads as this search). */
    @Override
    public String toString() {
        return SearchText.write(SearchText.Language.MESSAGE, bizType, bizId, eventNo, traceId, eventType,
                statuses.stream().sorted().map(s -> s.name().toLowerCase(Locale.ROOT)).toList(), null, null,
                createdFrom, createdBefore, errorText, minAttempts);
    }
}
