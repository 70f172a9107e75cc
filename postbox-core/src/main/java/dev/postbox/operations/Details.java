package dev.postbox.operations;

import dev.postbox.compensation.CompensationRecord;
import dev.postbox.compensation.CompensationStatus;
import dev.postbox.internal.Json;
import dev.postbox.internal.Settings;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * An event's detail page: its row (live, else archived), its timeline, its aggregate's sequence, its consumers,
 * related message events or outbox events and compensations of the same business key. Every read is one index
 * probe or range with a LIMIT: the row by event_no, attempts and admin-log rows by event_no (the newest
 * {@value #TIMELINE}), the aggregate around the event ({@value #BEFORE} before, {@value #AFTER} after), the consume
 * log by (consumer, event_no) for each consumer (read by a loose index scan: the consume log has no index on
 * event_no alone), {@value #RELATED} related rows each.
 */
final class Details {

    static final int TIMELINE = 200;
    static final int BEFORE = 20;
    static final int AFTER = 50;
    static final int RELATED = 50;
    static final int MAX_CONSUMERS = 100;

    /** A row of the event table, as far as the detail needs it; the payload is null unless it was asked for. */
    record Found(EventSummary summary, Map<String, String> fields, String headers, String payload, int status,
                 Instant successTime, Instant lastAttemptTime, Instant nextRetryTime) {
    }

    private final Settings s;
    private final Blocking blocking;
    private final Map<EventKind, EventTable> tables = new HashMap<>();
    private final Map<EventKind, String[]> byEventNoSql = new HashMap<>();
    final String attemptsSql;
    final String adminLogSql;
    final String beforeSql;
    final String afterSql;
    final String consumersSql;
    final Map<EventKind, String> relatedSql = new HashMap<>();
    final String compensationsSql;

    Details(Settings settings, Blocking blocking) {
        this.s = settings;
        this.blocking = blocking;
        var t = settings.tables();
        for (EventKind kind : EventKind.values()) {
            EventTable table = EventTable.of(kind, t);
            tables.put(kind, table);
            String columns = String.join(", ", table.detailColumns()) + ", " + table.headersColumn();
            // without and with the payload: a detail page never reads it
            String[] sql = new String[4];
            for (int withPayload = 0; withPayload < 2; withPayload++) {
                String selected = columns + (withPayload == 1 ? ", event_payload" : "");
                sql[2 * withPayload] = "SELECT " + selected + " FROM " + table.table() + " WHERE event_no = ?";
                sql[2 * withPayload + 1] = "SELECT " + selected + ", archived_time FROM " + table.archive()
                        + " WHERE event_no = ? ORDER BY event_no DESC, id DESC LIMIT 1";
            }
            byEventNoSql.put(kind, sql);
        }
        this.attemptsSql = "SELECT attempt, outcome, error, instance, next_retry_time, create_time FROM " + t.eventAttempt()
                + " WHERE event_no = ? AND event_kind = ? ORDER BY event_no DESC, id DESC LIMIT " + TIMELINE;
        this.adminLogSql = "SELECT action, actor, reason, create_time, action_id FROM " + t.adminLog()
                + " WHERE event_no = ? AND table_name = ? ORDER BY event_no DESC, id DESC LIMIT " + TIMELINE;
        EventTable outbox = tables.get(EventKind.OUTBOX);
        String byAggregate = outbox.table() + settings.dialect().forceIndex("idx_aggregate");
        this.beforeSql = "SELECT " + outbox.summaryColumns() + " FROM " + byAggregate + " WHERE aggregate_type = ?"
                + " AND aggregate_id = ? AND deleted = 0 AND id < ? ORDER BY aggregate_type DESC, aggregate_id DESC, id DESC"
                + " LIMIT " + BEFORE;
        this.afterSql = "SELECT " + outbox.summaryColumns() + " FROM " + byAggregate + " WHERE aggregate_type = ?"
                + " AND aggregate_id = ? AND deleted = 0 AND id > ? ORDER BY aggregate_type, aggregate_id, id LIMIT " + AFTER;
        this.consumersSql = settings.dialect().distinctValuesSql(t.consumeLog(), "consumer", MAX_CONSUMERS);
        EventTable message = tables.get(EventKind.MESSAGE);
        relatedSql.put(EventKind.OUTBOX, "SELECT " + message.summaryColumns() + " FROM " + message.table()
                + " WHERE biz_type = ? AND biz_id = ? AND deleted = 0 ORDER BY biz_type, biz_id, id LIMIT " + RELATED);
        relatedSql.put(EventKind.MESSAGE, "SELECT " + outbox.summaryColumns() + " FROM " + byAggregate
                + " WHERE aggregate_type = ? AND aggregate_id = ? AND deleted = 0 ORDER BY aggregate_type, aggregate_id, id"
                + " LIMIT " + RELATED);
        this.compensationsSql = "SELECT id, biz_type, biz_key, action_type, compensate_status, attempts, last_error,"
                + " create_time, update_time FROM " + t.compensationLog() + " WHERE biz_type = ? AND biz_key = ?"
                + " ORDER BY biz_type, biz_key, action_type LIMIT " + RELATED;
    }

    EventTable table(EventKind kind) {
        return tables.get(kind);
    }

    /** The live row with this event_no, else the newest archived one; its payload only when {@code withPayload}. */
    Optional<Found> find(Connection c, EventKind kind, String eventNo, boolean withPayload) throws SQLException {
        EventTable table = tables.get(kind);
        String[] sql = byEventNoSql.get(kind);
        for (int i = 0; i < 2; i++) {
            boolean archived = i == 1;
            Found f = Sql.first(c, s, sql[(withPayload ? 2 : 0) + i], List.of(eventNo),
                    rs -> read(rs, table, archived, withPayload));
            if (f != null) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    Optional<EventDetail> event(EventKind kind, String eventNo) {
        return Sql.read(s, "event detail of " + eventNo, c -> {
            Optional<Found> found = find(c, kind, eventNo, false);
            if (found.isEmpty()) {
                return Optional.empty();
            }
            Found f = found.get();
            EventSummary e = f.summary();
            List<EventSummary> sequence = List.of();
            long waiting = 0;
            if (kind == EventKind.OUTBOX) {
                sequence = sequence(c, e);
                waiting = blocking.waitingBehind(c, e.keyType(), e.key(), e.id())[0];
            }
            EventKind other = kind == EventKind.OUTBOX ? EventKind.MESSAGE : EventKind.OUTBOX;
            List<EventSummary> related = Sql.list(c, s, relatedSql.get(kind), List.of(e.keyType(), e.key()),
                    rs -> tables.get(other).summary(rs, s.dialect(), false));
            List<String> headerNames = headerNames(f.headers());
            return Optional.of(new EventDetail(e, f.fields(), headerNames, timeline(c, kind, f), sequence, waiting,
                    consumers(c, eventNo), related, compensations(c, e.keyType(), e.key())));
        });
    }

    /** The names of a headers column's JSON object, sorted; none when it is empty or not an object (set by hand). */
    private static List<String> headerNames(String json) {
        try {
            return new ArrayList<>(new TreeSet<>(Json.readHeaders(json).keySet()));
        } catch (dev.postbox.common.PostboxException notAnObject) {
            return List.of();
        }
    }

    private Found read(ResultSet rs, EventTable table, boolean archived, boolean withPayload) throws SQLException {
        Map<String, String> fields = new HashMap<>();
        for (String column : table.detailColumns()) {
            fields.put(column, text(rs, column));
        }
        if (archived) {
            fields.put("archived_time", text(rs, "archived_time"));
        }
        EventSummary summary = table.summary(rs, s.dialect(), archived);
        boolean outbox = table.kind() == EventKind.OUTBOX;
        return new Found(summary, fields, rs.getString(table.headersColumn()),
                withPayload ? rs.getString("event_payload") : null,
                rs.getInt(table.statusColumn()), s.dialect().readTime(rs, table.successTime()),
                s.dialect().readTime(rs, outbox ? "last_publish_time" : "last_handle_time"),
                s.dialect().readTime(rs, "next_retry_time"));
    }

    private String text(ResultSet rs, String column) throws SQLException {
        if (EventTable.TIME_COLUMNS.contains(column)) {
            Instant t = s.dialect().readTime(rs, column);
            return t == null ? null : t.toString();
        }
        return rs.getString(column);
    }

    /**
     * Oldest first: created, each failed attempt, lease takeover and admin action, published or handled. An event
     * from before schema version 8 (no attempt rows) shows its last failure from fail_reason.
     */
    private List<TimelineEntry> timeline(Connection c, EventKind kind, Found f) throws SQLException {
        EventSummary e = f.summary();
        List<TimelineEntry> entries = new ArrayList<>(Sql.list(c, s, attemptsSql, List.of(e.eventNo(), kind.name()),
                rs -> new TimelineEntry(s.dialect().readTime(rs, "create_time"), switch (rs.getString("outcome")) {
                    case "DEAD" -> "DEAD";
                    case OverviewReader.LEASE_EXPIRED -> "LEASE_EXPIRED";
                    case "CANCELLED" -> "CANCELLED";
                    default -> "ATTEMPT_FAILED";
                }, rs.getString("instance"), rs.getInt("attempt"), rs.getString("error"),
                        s.dialect().readTime(rs, "next_retry_time"), null)));
        boolean attempts = !entries.isEmpty();
        entries.addAll(Sql.list(c, s, adminLogSql, List.of(e.eventNo(), tables.get(kind).table()), rs -> {
            long id = rs.getLong("action_id");
            Long actionId = rs.wasNull() ? null : id;
            return new TimelineEntry(s.dialect().readTime(rs, "create_time"), switch (rs.getString("action")) {
                case "RETRY" -> "RETRIED";
                case "CANCEL" -> "CANCELLED";
                case "REVEAL_PAYLOAD" -> "REVEALED";
                default -> rs.getString("action");
            }, rs.getString("actor"), null, rs.getString("reason"), null, actionId);
        }));
        if (!attempts && e.failReason() != null && (e.retryCount() > 0 || "DEAD".equals(e.status())
                || "FAILED".equals(e.status()))) {
            Instant at = f.lastAttemptTime() != null ? f.lastAttemptTime() : e.updateTime();
            entries.add(new TimelineEntry(at, "DEAD".equals(e.status()) ? "DEAD" : "ATTEMPT_FAILED", null, e.retryCount(),
                    e.failReason(), "FAILED".equals(e.status()) ? f.nextRetryTime() : null, null));
        }
        entries.sort(Comparator.comparing(TimelineEntry::time, Comparator.nullsFirst(Comparator.naturalOrder())));
        if (entries.size() > TIMELINE - 2) {
            entries = new ArrayList<>(entries.subList(entries.size() - (TIMELINE - 2), entries.size()));
        }
        entries.add(0, new TimelineEntry(e.createTime(), "CREATED", null, null, null, null, null));
        if (f.successTime() != null) {
            entries.add(new TimelineEntry(f.successTime(), kind == EventKind.OUTBOX ? "PUBLISHED" : "HANDLED", null, null,
                    null, null, null));
        }
        return entries;
    }

    /** The aggregate's events around {@code e}, in publication (id) order, {@code e} among them. */
    private List<EventSummary> sequence(Connection c, EventSummary e) throws SQLException {
        EventTable outbox = tables.get(EventKind.OUTBOX);
        List<Object> params = List.of(e.keyType(), e.key(), e.id());
        List<EventSummary> before = new ArrayList<>(Sql.list(c, s, beforeSql, params, rs -> outbox.summary(rs, s.dialect(),
                false)));
        java.util.Collections.reverse(before);
        List<EventSummary> out = new ArrayList<>(before);
        out.add(e);
        out.addAll(Sql.list(c, s, afterSql, params, rs -> outbox.summary(rs, s.dialect(), false)));
        return out;
    }

    /** Each consumer's consume-log row of this event_no: one (consumer, event_no) probe per consumer. */
    private List<EventDetail.Consumption> consumers(Connection c, String eventNo) throws SQLException {
        List<String> consumers = Sql.list(c, s, consumersSql, List.of(), rs -> rs.getString(1));
        if (consumers.isEmpty()) {
            return List.of();
        }
        List<Object> params = new ArrayList<>(consumers);
        params.add(eventNo);
        return Sql.list(c, s, consumptionSql(consumers.size()), params, rs -> new EventDetail.Consumption(
                rs.getString("consumer"), rs.getString("consume_status"), s.dialect().readTime(rs, "create_time")));
    }

    /** The consume-log rows of one event_no for {@code consumers} consumers: a probe of the unique key each. */
    String consumptionSql(int consumers) {
        return "SELECT consumer, consume_status, create_time FROM " + s.tables().consumeLog() + " WHERE consumer IN ("
                + Sql.marks(consumers) + ") AND event_no = ? ORDER BY consumer";
    }

    /** The statement that finds an event by event_no: in the live table, or ({@code archived}) in the archive. */
    String byEventNoSql(EventKind kind, boolean archived, boolean withPayload) {
        return byEventNoSql.get(kind)[(withPayload ? 2 : 0) + (archived ? 1 : 0)];
    }

    private List<CompensationRecord> compensations(Connection c, String bizType, String bizKey) throws SQLException {
        return Sql.list(c, s, compensationsSql, List.of(bizType, bizKey), rs -> new CompensationRecord(rs.getLong("id"),
                rs.getString("biz_type"), rs.getString("biz_key"), rs.getString("action_type"),
                CompensationStatus.valueOf(rs.getString("compensate_status")), rs.getInt("attempts"),
                rs.getString("last_error"), s.dialect().readTime(rs, "create_time"), s.dialect().readTime(rs, "update_time")));
    }
}
