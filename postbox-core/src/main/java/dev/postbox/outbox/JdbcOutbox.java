package dev.postbox.outbox;

import dev.postbox.common.PostboxDefaults;
import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.TransactionRequiredException;
import dev.postbox.common.ValidationException;
import dev.postbox.internal.Check;
import dev.postbox.internal.IdempotentInsert;
import dev.postbox.internal.Json;
import dev.postbox.internal.Settings;
import dev.postbox.jdbc.Dialect;
import dev.postbox.tracing.PostboxTracing;
import dev.postbox.tracing.SpanRequest;
import dev.postbox.tracing.TraceSpan;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/** {@link Outbox} on plain JDBC. */
final class JdbcOutbox implements Outbox {

    private static final String TRACEPARENT = "traceparent";

    /** An event after validation, with everything the INSERT binds. */
    private record Row(String eventNo, OutboxEvent event, String source, String headersJson,
                       int maxRetries, Instant now, String traceId, TraceSpan span) {
    }

    private final Settings settings;
    private final IdempotentInsert<Row> insert;

    JdbcOutbox(Settings settings) {
        this.settings = settings;
        Dialect d = settings.dialect();
        String json = d.jsonParameter();
        this.insert = new IdempotentInsert<>(d, settings.tables().outbox(), """
                event_no, aggregate_type, aggregate_id, event_type, event_version, event_source, publish_channel, \
                topic, routing_key, event_payload, event_headers, publish_status, retry_count, max_retry_count, \
                trace_id, remark, version, deleted, create_time, update_time""",
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, %1$s, %1$s, %2$d, 0, ?, ?, ?, 0, 0, ?, ?)"
                        .formatted(json, OutboxStatus.PENDING.code()),
                "event_no", "uk_event_no", Row::eventNo, (ps, i, r) -> bind(ps, i, r, d));
    }

    @Override
    public WriteResult write(Connection connection, OutboxEvent event) {
        Objects.requireNonNull(connection, "connection");
        Row row = validate(Objects.requireNonNull(event, "event"), settings.now());
        return traced(List.of(row), () -> insert(connection, List.of(row), "outbox write")).get(0);
    }

    /** Runs the insert of {@code rows} and ends their create spans, as failed when it throws. */
    private static List<WriteResult> traced(List<Row> rows, java.util.function.Supplier<List<WriteResult>> insert) {
        List<WriteResult> results;
        try {
            results = insert.get();
        } catch (RuntimeException | Error e) {
            rows.forEach(r -> r.span().end(e));
            throw e;
        }
        rows.forEach(r -> r.span().end(null));
        return results;
    }

    @Override
    public List<WriteResult> writeAll(Connection connection, List<OutboxEvent> events) {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(events, "events");
        if (events.isEmpty()) {
            return List.of();
        }
        Instant now = settings.now();
        List<Row> rows = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            OutboxEvent e = events.get(i);
            if (e == null) {
                throw new ValidationException("events[" + i + "]", "must not be null");
            }
            try {
                rows.add(validate(e, now));
            } catch (ValidationException invalid) {
                rows.forEach(r -> r.span().end(invalid));
                throw invalid.within("events[" + i + "]");
            }
        }
        return traced(rows, () -> insert(connection, rows, "outbox writeAll of " + rows.size() + " events"));
    }

    private List<WriteResult> insert(Connection connection, List<Row> rows, String what) {
        try {
            if (connection.getAutoCommit()) {
                throw new TransactionRequiredException(what);
            }
            long[] ids = rows.size() == 1 ? insert.insert(connection, rows) : insertAllOrNothing(connection, rows);
            if (settings.notifyOnWrite() && anyInserted(ids) && settings.notifyGate().pass()) {
                notifyRelays(connection);
            }
            List<WriteResult> results = new ArrayList<>(rows.size());
            for (int i = 0; i < rows.size(); i++) {
                Row r = rows.get(i);
                results.add(ids[i] != 0
                        ? new WriteResult(r.eventNo(), WriteResult.Outcome.INSERTED, ids[i])
                        : new WriteResult(r.eventNo(), WriteResult.Outcome.DUPLICATE, 0));
            }
            return results;
        } catch (SQLException e) {
            throw new PostboxSqlException(what + " into " + settings.tables().outbox(), e);
        }
    }

    /**
     * A batch takes several statements (chunks of {@value PostboxDefaults#WRITE_BATCH_ROWS} rows, fewer when
     * the server's statement limit needs it); when the database refuses one, the rows the earlier ones
     * inserted are undone with a savepoint, so the caller's transaction holds all of the batch or none,
     * and stays usable (on PostgreSQL too, where a failed statement would otherwise abort it).
     */
    private long[] insertAllOrNothing(Connection connection, List<Row> rows) throws SQLException {
        Savepoint savepoint = connection.setSavepoint();
        long[] ids = new long[rows.size()];
        try {
            int from = 0;
            while (from < rows.size()) {
                int to = statementEnd(rows, from);
                long[] part = insert.insert(connection, rows.subList(from, to));
                System.arraycopy(part, 0, ids, from, part.length);
                from = to;
            }
        } catch (SQLException | RuntimeException e) {
            try {
                connection.rollback(savepoint);
            } catch (SQLException gone) {
                e.addSuppressed(gone); // e.g. a deadlock victim on MySQL: the whole transaction is gone already
            }
            throw e;
        }
        connection.releaseSavepoint(savepoint);
        return ids;
    }

    /** End (exclusive) of the rows from {@code from} that fit one statement under the server's limit. */
    private int statementEnd(List<Row> rows, int from) {
        long limit = settings.maxStatementBytes();
        int to = Math.min(rows.size(), from + PostboxDefaults.WRITE_BATCH_ROWS);
        if (limit == Long.MAX_VALUE) {
            return to;
        }
        long bytes = 0;
        for (int i = from; i < to; i++) {
            Row r = rows.get(i);
            bytes += Settings.statementBytes(Check.utf8Length(r.event().payload()),
                    r.headersJson() == null ? 0 : Check.utf8Length(r.headersJson()));
            if (bytes > limit && i > from) {
                return i;
            }
        }
        return to;
    }

    private static boolean anyInserted(long[] ids) {
        for (long id : ids) {
            if (id != 0) {
                return true;
            }
        }
        return false;
    }

    /** One NOTIFY, delivered by PostgreSQL at commit and only once per transaction however often it is sent. */
    private void notifyRelays(Connection connection) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT pg_notify(%s, '')".formatted(Settings.NOTIFY_CHANNEL_SQL))) {
            ps.setString(1, settings.tables().outbox());
            ps.execute();
        }
    }

    private Row validate(OutboxEvent e, Instant now) {
        Dialect d = settings.dialect();
        String eventNo = e.eventNo() == null ? UUID.randomUUID().toString() : Check.key(d, "eventNo", e.eventNo(), 64);
        Check.key(d, "aggregateType", e.aggregateType(), 64);
        Check.key(d, "aggregateId", e.aggregateId(), 64);
        Check.key(d, "eventType", e.eventType(), 64);
        Check.range("eventVersion", e.eventVersion(), 1, Integer.MAX_VALUE);
        String source = Check.key(d, "source", e.source() != null ? e.source() : settings.defaultSource(), 64);
        Check.key(d, "channel", e.channel(), 32);
        Check.optional(d, "topic", e.topic(), 128);
        Check.optional(d, "routingKey", e.routingKey(), 128);
        Check.json(d, "payload", e.payload(), settings.maxPayloadBytes());
        Check.optional(d, "traceId", e.traceId(), 128);
        Check.optional(d, "remark", e.remark(), 500);
        int maxRetries = e.maxRetries() == null ? PostboxDefaults.OUTBOX_MAX_RETRIES
                : Check.range("maxRetries", e.maxRetries(), 0, PostboxDefaults.MAX_RETRIES_LIMIT);
        TraceSpan span = createSpan(e, eventNo); // after every check but the headers': only they can fail past here
        String headersJson;
        try {
            headersJson = headers(withContext(e.headers(), span));
        } catch (RuntimeException invalid) {
            span.end(invalid);
            throw invalid;
        }
        return new Row(eventNo, e, source, headersJson, maxRetries, now,
                e.traceId() != null ? e.traceId() : span.traceId(), span);
    }

    /**
     * The create span of an event whose headers do not carry a context of their own yet (a {@code traceparent}
     * the application set itself is kept, and no span started).
     */
    private TraceSpan createSpan(OutboxEvent e, String eventNo) {
        if (settings.tracing() == PostboxTracing.NOOP || hasHeader(e.headers(), TRACEPARENT)) {
            return TraceSpan.NOOP;
        }
        try {
            return settings.tracing().start(SpanRequest.create(e.topic() != null ? e.topic() : e.channel(), eventNo,
                    e.aggregateId(), Map.of("postbox.event.type", e.eventType(),
                            "postbox.aggregate.type", e.aggregateType(), "postbox.channel", e.channel())));
        } catch (RuntimeException tracerFailed) {
            return TraceSpan.NOOP; // a tracer must never fail a business transaction
        }
    }

    private static Map<String, String> withContext(Map<String, String> headers, TraceSpan span) {
        if (span == TraceSpan.NOOP) {
            return headers;
        }
        Map<String, String> h = new java.util.LinkedHashMap<>(headers);
        try {
            span.inject(h);
        } catch (RuntimeException tracerFailed) {
            return headers;
        }
        return h;
    }

    private static boolean hasHeader(Map<String, String> headers, String name) {
        for (String k : headers.keySet()) {
            if (k.equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    private String headers(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return null;
        }
        for (Map.Entry<String, String> h : headers.entrySet()) {
            Check.required(settings.dialect(), "headers", h.getKey(), 128);
            if (h.getKey().toLowerCase(java.util.Locale.ROOT).startsWith(OutboxEvent.RESERVED_HEADER_PREFIX)) {
                throw new ValidationException("headers." + h.getKey(), "names starting with '"
                        + OutboxEvent.RESERVED_HEADER_PREFIX + "' are reserved for the transport envelope");
            }
            if (h.getValue() == null) {
                throw new ValidationException("headers." + h.getKey(), "value is required");
            }
            Check.optional(settings.dialect(), "headers." + h.getKey(), h.getValue(), Integer.MAX_VALUE); // size: checked as JSON below
        }
        String json = Json.writeHeaders(headers);
        long bytes = Check.utf8Length(json);
        if (bytes > settings.maxHeadersBytes()) {
            throw new ValidationException("headers", "must be at most " + settings.maxHeadersBytes()
                    + " bytes of UTF-8 as JSON (was " + bytes + ")");
        }
        return json;
    }

    private static int bind(PreparedStatement ps, int i, Row r, Dialect d) throws SQLException {
        OutboxEvent e = r.event();
        ps.setString(i++, r.eventNo());
        ps.setString(i++, e.aggregateType());
        ps.setString(i++, e.aggregateId());
        ps.setString(i++, e.eventType());
        ps.setInt(i++, e.eventVersion());
        ps.setString(i++, r.source());
        ps.setString(i++, e.channel());
        ps.setString(i++, e.topic());
        ps.setString(i++, e.routingKey());
        d.bindJson(ps, i++, e.payload());
        d.bindJson(ps, i++, r.headersJson());
        ps.setInt(i++, r.maxRetries());
        ps.setString(i++, r.traceId());
        ps.setString(i++, e.remark());
        d.bindTime(ps, i++, r.now());
        d.bindTime(ps, i++, r.now());
        return i;
    }
}
