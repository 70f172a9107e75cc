package dev.postbox.query;

import dev.postbox.internal.Settings;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxRows;
import dev.postbox.outbox.OutboxStatus;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Search of the outbox by {@link SearchQuery} (what the console's search box sends), bounded however large the
 * table is. One qualifier <em>drives</em> the search: its index is read in order, newest first, a chunk at a
 * time; the other conditions are checked on the rows read. The drivers, in the order one is chosen: event_no;
 * the aggregate (with its type, or by the id alone: then for each aggregate type Postbox found, an index probe);
 * the trace id; {@code status:} without PUBLISHED (the backlog and DEAD are small); {@code type:} and
 * {@code topic:} (newest first by creation time, within {@code after:}/{@code before:}); a creation time range;
 * {@code status:} with PUBLISHED. A search with none of them (only {@code channel:}, {@code error:},
 * {@code attempts>=}) would read the whole table and is refused. A page reads at most {@link #MAX_EXAMINED}
 * rows of its driver: when they hold fewer matches than asked, the page says so ({@link Result#complete()}
 * false) and its cursor continues after the last row read, so a rare match costs more pages, never an unbounded
 * statement. The message events have the same search ({@link MessageSearch}). Thread-safe.
 */
public final class OutboxSearch {

    /** Rows of the driving index one page reads at most. */
    public static final int MAX_EXAMINED = 5_000;

    /**
     * A page stops reading further chunks of its driving index after this long (the first chunk is always read),
     * and says so like a page that reached {@link #MAX_EXAMINED}: a rare match behind a cold index (a narrow
     * condition over many rows of its driver, e.g. {@code status:failed topic:payments}) costs more pages of bounded
     * latency instead of one slow one. 5,000 row lookups on a MariaDB whose buffer pool does not hold the table took
     * 300-900 ms.
     */
    public static final long MAX_PAGE_MILLIS = 150;

    /** What drives a search: which index is read, in which order. */
    public enum Driver { EVENT_NO, AGGREGATE, TRACE, STATUS, TYPE, TOPIC, CREATED }

    /**
     * One page of a search.
     *
     * @param items      the matching events, newest first (by id, or by creation time with type, topic and time)
     * @param nextCursor where the next page starts ({@link PageRequest#after(String, int)}), null after the last
     * @param examined   rows of the driving index this page read
     * @param complete   false when the page stopped at {@link #MAX_EXAMINED} rows or {@link #MAX_PAGE_MILLIS} before it was full: more
     *                   may match after the cursor
     * @param driver     the qualifier whose index drove the search
     */
    public record Result(List<OutboxRecord> items, String nextCursor, int examined, boolean complete, Driver driver) {
        public Result {
            items = List.copyOf(items);
        }
    }

    private final Settings s;
    private final IndexedSearch engine;
    private final Duration pageTimeLimit;

    OutboxSearch(Settings settings) {
        this(settings, new IndexedSearch(settings, new IndexedSearch.Table(settings.tables().outbox(), "aggregate",
                "aggregate_type", "aggregate_id", "publish_status", true, OutboxStatus.PUBLISHED.code()), "outbox search"),
                Duration.ofMillis(MAX_PAGE_MILLIS));
    }

    private OutboxSearch(Settings settings, IndexedSearch engine, Duration pageTimeLimit) {
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
    public OutboxSearch pageTimeLimit(Duration limit) {
        if (limit == null || limit.isNegative()) {
            throw new dev.postbox.common.ValidationException("pageTimeLimit", "must be zero or more (was " + limit + ")");
        }
        return new OutboxSearch(s, engine, limit);
    }

    /** {@link #search(SearchQuery, PageRequest)} of the text {@code query} ({@link SearchQuery#parse}). */
    public Result search(String query, PageRequest page) {
        return search(SearchQuery.parse(query, s.now()), page);
    }

    /** One page of the events matching every condition of {@code q}. */
    public Result search(SearchQuery q, PageRequest page) {
        IndexedSearch.Found<OutboxRecord> found = engine.search(criteria(q), page, pageTimeLimit, OutboxRows.COLUMNS, OutboxRows::read,
                OutboxRecord::id);
        return new Result(found.items(), found.nextCursor(), found.examined(), found.complete(), driver(found.driver()));
    }

    /** The driver Postbox would choose for {@code q}; throws when none applies. */
    public Driver driver(SearchQuery q) {
        return driver(engine.choose(criteria(q)));
    }

    /** The driving SELECT of {@code q} (first page), for EXPLAIN in tests. */
    String drivingSql(SearchQuery q) {
        return engine.drivingSql(criteria(q));
    }

    private static Driver driver(IndexedSearch.By by) {
        return by == IndexedSearch.By.KEY ? Driver.AGGREGATE : Driver.valueOf(by.name());
    }

    private static IndexedSearch.Criteria criteria(SearchQuery q) {
        return new IndexedSearch.Criteria(q.eventNo(), q.aggregateType(), q.aggregateId(), q.traceId(), q.eventType(),
                q.statuses().stream().map(OutboxStatus::code).collect(Collectors.toSet()), q.topic(), q.channel(),
                q.createdFrom(), q.createdBefore(), q.errorText(), q.minAttempts());
    }
}
