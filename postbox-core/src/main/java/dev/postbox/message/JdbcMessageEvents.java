package dev.postbox.message;

import dev.postbox.common.PostboxDefaults;
import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.TransactionRequiredException;
import dev.postbox.common.ValidationException;
import dev.postbox.internal.AttemptLog;
import dev.postbox.internal.Check;
import dev.postbox.internal.IdempotentInsert;
import dev.postbox.internal.Settings;
import dev.postbox.jdbc.Dialect;
import dev.postbox.outbox.WriteResult;
import dev.postbox.tracing.TraceSpan;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * {@link MessageEvents} on plain JDBC; each transition is one conditional UPDATE and bumps {@code version},
 * which is what fences the {@link MessageWorker}'s writes. A failure that changed the row also leaves its
 * attempt row ({@code biz_event_attempt}) in the caller's transaction.
 */
final class JdbcMessageEvents implements MessageEvents {

    private static final int PENDING = MessageStatus.PENDING.code();
    private static final int PROCESSING = MessageStatus.PROCESSING.code();
    private static final int SUCCEEDED = MessageStatus.SUCCEEDED.code();
    private static final int FAILED = MessageStatus.FAILED.code();
    private static final int CANCELLED = MessageStatus.CANCELLED.code();
    private static final int DEAD = MessageStatus.DEAD.code();

    private record Row(String eventNo, MessageEvent event, String source, int maxRetries, Instant now, String traceId,
                       String traceContext) {
    }

    private final Settings settings;
    private final Dialect dialect;
    private final IdempotentInsert<Row> insert;
    private final String claimSql;
    private final String succeedSql;
    private final String retrySql;
    private final String deadSql;
    private final String deadNowSql;
    private final String cancelSql;
    private final AttemptLog attempts;

    JdbcMessageEvents(Settings settings) {
        this.settings = settings;
        this.dialect = settings.dialect();
        String t = settings.tables().message();
        this.attempts = new AttemptLog(dialect, settings.tables().eventAttempt(), t);
        // by primary key only: MariaDB otherwise may update through a status index, locking that status's rows
        String byId = t + dialect.forceIndex("PRIMARY");
        this.insert = new IdempotentInsert<>(dialect, t, """
                event_no, event_type, biz_type, biz_id, event_source, event_payload, event_status, retry_count,
                 max_retry_count, trace_id, trace_context, remark, version, deleted, create_time, update_time""",
                "(?, ?, ?, ?, ?, %s, %d, 0, ?, ?, ?, ?, 0, 0, ?, ?)".formatted(dialect.jsonParameter(), PENDING),
                "event_no", "uk_event_no", Row::eventNo, this::bind);
        this.claimSql = """
                UPDATE %s
                   SET event_status = %d, last_handle_time = ?, version = version + 1, update_time = ?
                 WHERE id = ? AND deleted = 0
                   AND (event_status = %d OR (event_status = %d AND next_retry_time <= ?))""".formatted(byId, PROCESSING,
                PENDING, FAILED);
        this.succeedSql = """
                UPDATE %s
                   SET event_status = %d, success_time = ?, fail_reason = NULL, next_retry_time = NULL, version = version + 1,
                       update_time = ?
                 WHERE id = ? AND event_status = %d AND deleted = 0""".formatted(byId, SUCCEEDED, PROCESSING);
        this.retrySql = """
                UPDATE %s
                   SET event_status = %d, retry_count = retry_count + 1, next_retry_time = ?, fail_reason = ?, version = version + 1,
                       update_time = ?
                 WHERE id = ? AND event_status = %d AND deleted = 0 AND retry_count < max_retry_count""".formatted(byId, FAILED,
                PROCESSING);
        this.deadSql = """
                UPDATE %s
                   SET event_status = %d, retry_count = retry_count + 1, next_retry_time = NULL, fail_reason = ?, version = version + 1,
                       update_time = ?
                 WHERE id = ? AND event_status = %d AND deleted = 0 AND retry_count >= max_retry_count""".formatted(byId, DEAD,
                PROCESSING);
        this.deadNowSql = """
                UPDATE %s
                   SET event_status = %d, retry_count = retry_count + 1, next_retry_time = NULL, fail_reason = ?, version = version + 1,
                       update_time = ?
                 WHERE id = ? AND event_status = %d AND deleted = 0""".formatted(byId, DEAD, PROCESSING);
        this.cancelSql = """
                UPDATE %s
                   SET event_status = %d, fail_reason = ?, next_retry_time = NULL, version = version + 1, update_time = ?
                 WHERE id = ? AND deleted = 0 AND event_status IN (%d, %d)""".formatted(byId, CANCELLED, PENDING, FAILED);
    }

    @Override
    public WriteResult create(Connection connection, MessageEvent event) {
        Objects.requireNonNull(connection, "connection");
        Row validated = validate(Objects.requireNonNull(event, "event"));
        // the write's create span: its trace id fills trace_id when the event names none, its context is stored
        TraceSpan span = MessageSpans.create(settings.tracing(), validated.event(), validated.eventNo());
        Row row = span == TraceSpan.NOOP ? validated : new Row(validated.eventNo(), validated.event(), validated.source(),
                validated.maxRetries(), validated.now(), validated.traceId() != null ? validated.traceId() : span.traceId(),
                MessageSpans.context(span));
        try {
            if (connection.getAutoCommit()) {
                throw new TransactionRequiredException("message event create");
            }
            long id = insert.insert(connection, List.of(row))[0];
            span.end(null);
            return id != 0 ? new WriteResult(row.eventNo(), WriteResult.Outcome.INSERTED, id)
                    : new WriteResult(row.eventNo(), WriteResult.Outcome.DUPLICATE, 0);
        } catch (SQLException e) {
            PostboxSqlException failed = new PostboxSqlException("message event create into " + settings.tables().message(), e);
            span.end(failed);
            throw failed;
        } catch (RuntimeException e) {
            span.end(e);
            throw e;
        }
    }

    @Override
    public boolean claim(Connection connection, long id) {
        Instant now = settings.now();
        return update(connection, "claim of message event " + id, claimSql, ps -> {
            dialect.bindTime(ps, 1, now);
            dialect.bindTime(ps, 2, now);
            ps.setLong(3, id);
            dialect.bindTime(ps, 4, now);
        }) == 1;
    }

    @Override
    public boolean succeed(Connection connection, long id) {
        Instant now = settings.now();
        return update(connection, "success of message event " + id, succeedSql, ps -> {
            dialect.bindTime(ps, 1, now);
            dialect.bindTime(ps, 2, now);
            ps.setLong(3, id);
        }) == 1;
    }

    @Override
    public FailOutcome fail(Connection connection, long id, String reason, Duration retryAfter) {
        if (retryAfter == null || retryAfter.isNegative()) {
            throw new ValidationException("retryAfter", "must be zero or positive (was " + retryAfter + ")");
        }
        Instant now = settings.now();
        String clipped = Check.clip(reason, 1000);
        int retried = update(connection, "failure of message event " + id, retrySql, ps -> {
            dialect.bindTime(ps, 1, dev.postbox.internal.Instants.plus(now, retryAfter));
            ps.setString(2, clipped);
            dialect.bindTime(ps, 3, now);
            ps.setLong(4, id);
        });
        if (retried == 1) {
            attempt(connection, id, AttemptLog.FAILED, now);
            return FailOutcome.RETRY_SCHEDULED;
        }
        return dead(connection, id, clipped, now, deadSql);
    }

    @Override
    public FailOutcome failPermanently(Connection connection, long id, String reason) {
        return dead(connection, id, Check.clip(reason, 1000), settings.now(), deadNowSql);
    }

    private FailOutcome dead(Connection connection, long id, String reason, Instant now, String sql) {
        int dead = update(connection, "failure of message event " + id, sql, ps -> {
            ps.setString(1, reason);
            dialect.bindTime(ps, 2, now);
            ps.setLong(3, id);
        });
        if (dead == 1) {
            attempt(connection, id, AttemptLog.DEAD, now);
            return FailOutcome.DEAD;
        }
        return FailOutcome.NOT_PROCESSING;
    }

    /**
     * The attempt row of the failure just written in the caller's transaction, as the row now holds it (no
     * instance: the application recorded it, not a worker).
     */
    private void attempt(Connection connection, long id, String outcome, Instant now) {
        try {
            attempts.copyOfMessage(connection, id, outcome, null, now);
        } catch (SQLException e) {
            throw new PostboxSqlException("attempt history of message event " + id, e);
        }
    }

    @Override
    public boolean cancel(Connection connection, long id, String reason) {
        String clipped = Check.clip(reason, 1000);
        Instant now = settings.now();
        return update(connection, "cancel of message event " + id, cancelSql, ps -> {
            ps.setString(1, clipped);
            dialect.bindTime(ps, 2, now);
            ps.setLong(3, id);
        }) == 1;
    }

    private interface Binding {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private int update(Connection connection, String what, String sql, Binding binding) {
        Objects.requireNonNull(connection, "connection");
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            binding.bind(ps);
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new PostboxSqlException(what, e);
        }
    }

    private Row validate(MessageEvent e) {
        Dialect d = dialect;
        String eventNo = e.eventNo() == null ? UUID.randomUUID().toString() : Check.key(d, "eventNo", e.eventNo(), 64);
        Check.key(d, "eventType", e.eventType(), 64);
        Check.key(d, "bizType", e.bizType(), 64);
        Check.key(d, "bizId", e.bizId(), 64);
        String source = Check.key(d, "source", e.source() != null ? e.source() : settings.defaultSource(), 64);
        Check.json(d, "payload", e.payload(), settings.maxPayloadBytes());
        int maxRetries = e.maxRetries() == null ? PostboxDefaults.MESSAGE_MAX_RETRIES
                : Check.range("maxRetries", e.maxRetries(), 0, PostboxDefaults.MAX_RETRIES_LIMIT);
        Check.optional(d, "traceId", e.traceId(), 128);
        Check.optional(d, "remark", e.remark(), 500);
        return new Row(eventNo, e, source, maxRetries, settings.now(), e.traceId(), null);
    }

    private int bind(PreparedStatement ps, int i, Row r) throws SQLException {
        MessageEvent e = r.event();
        ps.setString(i++, r.eventNo());
        ps.setString(i++, e.eventType());
        ps.setString(i++, e.bizType());
        ps.setString(i++, e.bizId());
        ps.setString(i++, r.source());
        dialect.bindJson(ps, i++, e.payload());
        ps.setInt(i++, r.maxRetries());
        ps.setString(i++, r.traceId());
        ps.setString(i++, r.traceContext());
        ps.setString(i++, e.remark());
        dialect.bindTime(ps, i++, r.now());
        dialect.bindTime(ps, i++, r.now());
        return i;
    }
}
