package dev.postbox.query;

import dev.postbox.internal.Settings;
import dev.postbox.message.MessageRecord;
import dev.postbox.message.MessageRows;
import dev.postbox.message.MessageStatus;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Search of the message events by {@link MessageSearchQuery}: the same engine, bounds and paging as
 * {@link OutboxSearch}, on the message table's indexes. The drivers, in the order one is chosen: event_no; the
 * business key (with its type, or by the id alone: an index probe per business type); the trace id;
 * {@code status:} without SUCCEEDED; {@code type:} (newest first by creation time, within the time range); a
 * creation time range; {@code status:} with SUCCEEDED. A search only {@code error:} or {@code attempts>=} could
 * drive is refused; a page reads at most {@link OutboxSearch#MAX_EXAMINED} rows of its driver. Thread-safe.
 */
public final class MessageSearch {

    /** What drives a search: which index is read, in which order. */
    public enum Driver { EVENT_NO, BIZ, TRACE, STATUS, TYPE, CREATED }

    /**
     * One page of a search.
     *
     * @param items      the matching events, newest first (by id, or by creation time with type and time)
     * @param nextCursor where the next page starts ({@link PageRequest#after(String, int)}), null after the last
     * @param examined   rows of the driving index this page read
     * @param complete   false when the page stopped at {@link OutboxSearch#MAX_EXAMINED} rows read before it was
     *                   full: more may match after the cursor
     * @param driver     the qualifier whose index drove the search
     */
    public record Result(List<MessageRecord> items, String nextCursor, int examined, boolean complete, Driver driver) {
        public Result {
            items = List.copyOf(items);
        }
    }

    private final Settings s;
    private final IndexedSearch engine;
    private final Duration pageTimeLimit;

    MessageSearch(Settings settings) {
        this(settings, new IndexedSearch(settings, new IndexedSearch.Table(settings.tables().message(), "biz", "biz_type",
                "biz_id", "event_status", false, MessageStatus.SUCCEEDED.code()), "message search"),
                Duration.ofMillis(OutboxSearch.MAX_PAGE_MILLIS));
    }

    private MessageSearch(Settings settings, IndexedSearch engine, Duration pageTimeLimit) {
        this.s = settings;
        this.engine = engine;
        this.pageTimeLimit = pageTimeLimit;
    }

    /**
     * This search with another limit on a page's reading time (default {@link OutboxSearch#MAX_PAGE_MILLIS} ms): after
     * it a page reads no further chunk of its driving index and says it is incomplete, with a cursor that goes on where
     * it stopped; the first chunk is always read. {@link Duration#ZERO}: one chunk a page. A long limit lets a page read
     * up to {@link OutboxSearch#MAX_EXAMINED} rows whatever the time (a batch job, a test that counts rows).
     *
     * @throws dev.postbox.common.ValidationException when {@code limit} is negative
     */
    public MessageSearch pageTimeLimit(Duration limit) {
        if (limit == null || limit.isNegative()) {
            throw new dev.postbox.common.ValidationException("pageTimeLimit", "must be zero or more (was " + limit + ")");
        }
        return new MessageSearch(s, engine, limit);
    }

    /** {@link #search(MessageSearchQuery, PageRequest)} of the text {@code query} ({@link MessageSearchQuery#parse}). */
    public Result search(String query, PageRequest page) {
        return search(MessageSearchQuery.parse(query, s.now()), page);
    }

    /** One page of the message events matching every condition of {@code q}. */
    public Result search(MessageSearchQuery q, PageRequest page) {
        IndexedSearch.Found<MessageRecord> found = engine.search(criteria(q), page, pageTimeLimit, MessageRows.COLUMNS,
                MessageRows::read, MessageRecord::id);
        return new Result(found.items(), found.nextCursor(), found.examined(), found.complete(), driver(found.driver()));
    }

    /** The driver Postbox would choose for {@code q}; throws when none applies. */
    public Driver driver(MessageSearchQuery q) {
        return driver(engine.choose(criteria(q)));
    }

    /** The driving SELECT of {@code q} (first page), for EXPLAIN in tests. */
    String drivingSql(MessageSearchQuery q) {
        return engine.drivingSql(criteria(q));
    }

    private static Driver driver(IndexedSearch.By by) {
        return by == IndexedSearch.By.KEY ? Driver.BIZ : Driver.valueOf(by.name());
    }

    private static IndexedSearch.Criteria criteria(MessageSearchQuery q) {
        return new IndexedSearch.Criteria(q.eventNo(), q.bizType(), q.bizId(), q.traceId(), q.eventType(),
                q.statuses().stream().map(MessageStatus::code).collect(Collectors.toSet()), null, null,
                q.createdFrom(), q.createdBefore(), q.errorText(), q.minAttempts());
    }
}
