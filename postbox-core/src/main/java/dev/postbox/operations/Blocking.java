package dev.postbox.operations;

import dev.postbox.internal.Settings;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.query.Page;
import dev.postbox.query.PageRequest;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Which aggregates the relay holds back, decided by the relay's own rule (its order guard): an event waits while
 * an earlier event of its aggregate ({@code deleted = 0}, not of an unordered topic) is PENDING, PUBLISHING,
 * FAILED or DEAD. So an aggregate is blocked when its head, the first such event, is DEAD (until a person acts)
 * or FAILED (until its retry succeeds). The candidates are the DEAD and FAILED events, read in id order over the
 * (status, id) index, one stream per status merged; each is the head when no earlier blocking event of its
 * aggregate exists (one probe of the aggregate's unfinished index). Every read is bounded: a page examines at most
 * {@link dev.postbox.query.OutboxSearch#MAX_EXAMINED} candidates, a count behind a head stops at
 * {@link EventDetail#WAITING_CAP}. With {@link OperationsConfig#ordered()} false nothing is ever blocked.
 */
final class Blocking {

    private static final int CHUNK = 200;
    private static final List<Integer> HEADS = List.of(OutboxStatus.FAILED.code(), OutboxStatus.DEAD.code());
    private static final String BLOCKING = Sql.codes(List.of(OutboxStatus.PENDING.code(), OutboxStatus.PUBLISHING.code(),
            OutboxStatus.FAILED.code(), OutboxStatus.DEAD.code()));

    private final Settings s;
    private final OperationsConfig config;
    private final EventTable outbox;
    /**
     * Per head status (FAILED, DEAD; the code a literal, as partial indexes need): the candidates after an id, in
     * id order; parameters: id, unordered topics..., limit.
     */
    final List<String> candidatesSql;
    /** Whether an earlier blocking event of the aggregate exists; parameters: type, id, event id, topics... */
    final String earlierSql;
    /** Blocking events after an event, capped; parameters: type, id, event id, topics..., cap. */
    final String behindSql;

    Blocking(Settings settings, OperationsConfig config) {
        this.s = settings;
        this.config = config;
        this.outbox = EventTable.of(EventKind.OUTBOX, settings.tables());
        String t = outbox.table();
        String topics = config.unorderedTopics().isEmpty() ? ""
                : " AND (topic IS NULL OR topic NOT IN (" + Sql.marks(config.unorderedTopics().size()) + "))";
        this.candidatesSql = HEADS.stream().map(code -> "SELECT " + outbox.summaryColumns() + " FROM " + t
                + settings.dialect().forceIndex("idx_status_id") + " WHERE publish_status = " + code
                + " AND deleted = 0 AND id > ?" + topics + " ORDER BY publish_status, id LIMIT ?").toList();
        String probe = t + settings.dialect().forceIndex("idx_aggregate_status");
        this.earlierSql = "SELECT id FROM " + probe + " WHERE aggregate_type = ? AND aggregate_id = ? AND publish_status IN ("
                + BLOCKING + ") AND deleted = 0 AND id < ?" + topics + " LIMIT 1";
        this.behindSql = "SELECT COUNT(*) FROM (SELECT id FROM " + probe + " WHERE aggregate_type = ? AND aggregate_id = ?"
                + " AND publish_status IN (" + BLOCKING + ") AND deleted = 0 AND id > ?" + topics + " LIMIT ?) behind";
    }

    /** One page of blocked aggregates, oldest head first. */
    Page<BlockedAggregate> page(PageRequest page) {
        if (!config.ordered()) {
            return new Page<>(List.of(), null);
        }
        long after = page.after() == null ? 0 : cursor(page.after());
        return Sql.read(s, "blocked aggregates", c -> {
            Heads heads = new Heads(c, after);
            List<BlockedAggregate> items = new ArrayList<>();
            EventSummary head;
            while (items.size() < page.limit() && (head = heads.next()) != null) {
                long[] behind = waitingBehind(c, head.keyType(), head.key(), head.id());
                items.add(new BlockedAggregate(head.keyType(), head.key(), head, behind[0], behind[1] == 1));
            }
            return new Page<>(items, heads.exhausted() ? null : Long.toString(heads.lastExamined));
        });
    }

    /** How many aggregates are blocked, counted up to {@code cap} (fewer when the examined limit came first). */
    long count(int cap) {
        if (!config.ordered()) {
            return 0;
        }
        return Sql.read(s, "counting blocked aggregates", c -> {
            Heads heads = new Heads(c, 0);
            long n = 0;
            while (n < cap && heads.next() != null) {
                n++;
            }
            return n;
        });
    }

    /** Blocking events of the aggregate after event {@code id}, up to the cap; and 1 when capped, else 0. */
    long[] waitingBehind(Connection c, String type, String id, long eventId) throws SQLException {
        if (!config.ordered()) {
            return new long[] {0, 0};
        }
        List<Object> params = new ArrayList<>(List.of(type, id, eventId));
        params.addAll(config.unorderedTopics());
        params.add(EventDetail.WAITING_CAP);
        long n = Sql.first(c, s, behindSql, params, rs -> rs.getLong(1));
        return new long[] {n, n >= EventDetail.WAITING_CAP ? 1 : 0};
    }

    /** Whether the DEAD or FAILED event {@code e} holds its aggregate back: no earlier blocking event exists. */
    boolean isHead(Connection c, EventSummary e) throws SQLException {
        if (!config.ordered() || e.route() != null && config.unorderedTopics().contains(e.route())) {
            return false;
        }
        List<Object> params = new ArrayList<>(List.of(e.keyType(), e.key(), e.id()));
        params.addAll(config.unorderedTopics());
        return Sql.first(c, s, earlierSql, params, rs -> rs.getLong(1)) == null;
    }

    private static long cursor(String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new dev.postbox.common.ValidationException("after", "is not a cursor of the blocked aggregates (was \""
                    + (text.length() > 40 ? text.substring(0, 40) + "..." : text) + "\")");
        }
    }

    /** The heads among the DEAD and FAILED events after an id, in id order: two index-ordered streams merged. */
    private final class Heads {
        private final Connection c;
        private final List<Deque<EventSummary>> buffers = new ArrayList<>();
        private final long[] readUpTo = new long[HEADS.size()];
        private final boolean[] done = new boolean[HEADS.size()];
        private int examined;
        long lastExamined;

        Heads(Connection c, long after) {
            this.c = c;
            this.lastExamined = after;
            for (int i = 0; i < HEADS.size(); i++) {
                buffers.add(new ArrayDeque<>());
                readUpTo[i] = after;
            }
        }

        /** The next head, or null when the candidates ran out or the examined limit was reached. */
        EventSummary next() throws SQLException {
            while (examined < dev.postbox.query.OutboxSearch.MAX_EXAMINED) {
                int lowest = -1;
                for (int i = 0; i < HEADS.size(); i++) {
                    if (buffers.get(i).isEmpty() && !done[i]) {
                        refill(i);
                    }
                    EventSummary first = buffers.get(i).peekFirst();
                    if (first != null && (lowest < 0 || first.id() < buffers.get(lowest).peekFirst().id())) {
                        lowest = i;
                    }
                }
                if (lowest < 0) {
                    return null;
                }
                EventSummary candidate = buffers.get(lowest).pollFirst();
                examined++;
                lastExamined = candidate.id();
                if (isHead(c, candidate)) {
                    return candidate;
                }
            }
            return null;
        }

        /** True when every candidate has been examined. */
        boolean exhausted() {
            for (int i = 0; i < HEADS.size(); i++) {
                if (!done[i] || !buffers.get(i).isEmpty()) {
                    return false;
                }
            }
            return true;
        }

        private void refill(int i) throws SQLException {
            List<Object> params = new ArrayList<>(List.of(readUpTo[i]));
            params.addAll(config.unorderedTopics());
            params.add(CHUNK);
            List<EventSummary> rows = Sql.list(c, s, candidatesSql.get(i), params, rs -> outbox.summary(rs, s.dialect(), false));
            buffers.get(i).addAll(rows);
            if (rows.size() < CHUNK) {
                done[i] = true;
            }
            if (!rows.isEmpty()) {
                readUpTo[i] = rows.get(rows.size() - 1).id();
            }
        }
    }
}
