package dev.postbox.retention;

import dev.postbox.compensation.CompensationStatus;
import dev.postbox.jdbc.TableNames;
import dev.postbox.message.MessageStatus;
import dev.postbox.outbox.OutboxStatus;

import java.util.List;
import java.util.Set;

/**
 * The tables retention keeps small, each with the statuses it may remove and the ones it never touches.
 * A row's age is taken from {@code update_time} (the time of its last change of state: published, dead,
 * cancelled, done), or for the consume log and the attempt history from {@code create_time}.
 */
public enum RetentionTable {

    /** {@code outbox_event}: PUBLISHED, CANCELLED, DEAD; never PENDING, PUBLISHING, FAILED. */
    OUTBOX("outbox", "publish_status", true,
            List.of(OutboxStatus.PUBLISHED.name(), OutboxStatus.CANCELLED.name(), OutboxStatus.DEAD.name()),
            List.of(OutboxStatus.PENDING.name(), OutboxStatus.PUBLISHING.name(), OutboxStatus.FAILED.name())),

    /** {@code message_event}: SUCCEEDED, CANCELLED, DEAD; never PENDING, PROCESSING, FAILED. */
    MESSAGES("messages", "event_status", true,
            List.of(MessageStatus.SUCCEEDED.name(), MessageStatus.CANCELLED.name(), MessageStatus.DEAD.name()),
            List.of(MessageStatus.PENDING.name(), MessageStatus.PROCESSING.name(), MessageStatus.FAILED.name())),

    /** {@code consume_log}, the inbox: every row older than the dedupe window (rows only commit finished). */
    CONSUME_LOG("consumeLog", null, false, List.of(), List.of()),

    /** {@code compensation_log}: DONE, FAILED; never RUNNING. */
    COMPENSATIONS("compensations", "compensate_status", false,
            List.of(CompensationStatus.DONE.name(), CompensationStatus.FAILED.name()),
            List.of(CompensationStatus.RUNNING.name())),

    /**
     * {@code event_attempt}, the attempt history of outbox and message events (schema version 8): every row
     * older than its window, by default that of the longest outbox or message rule
     * ({@link RetentionPolicy#rules(RetentionTable)}). Deleted only: it has no archive twin.
     */
    ATTEMPTS("attempts", null, false, List.of(), List.of());

    private final String field;
    private final String statusColumn;
    private final boolean numericStatus;
    private final List<String> removable;
    private final List<String> unfinished;

    RetentionTable(String field, String statusColumn, boolean numericStatus, List<String> removable,
                   List<String> unfinished) {
        this.field = field;
        this.statusColumn = statusColumn;
        this.numericStatus = numericStatus;
        this.removable = removable;
        this.unfinished = unfinished;
    }

    /** How settings and errors name this table's policy: {@code outbox}, {@code messages}, ... */
    public String field() {
        return field;
    }

    /** The statuses retention may remove from this table (empty for the consume log: all rows). */
    public List<String> removableStatuses() {
        return removable;
    }

    /** The statuses retention never touches, whatever the policy says. */
    public Set<String> unfinishedStatuses() {
        return Set.copyOf(unfinished);
    }

    /** The online table, for {@code tables}. */
    public String table(TableNames tables) {
        return switch (this) {
            case OUTBOX -> tables.outbox();
            case MESSAGES -> tables.message();
            case CONSUME_LOG -> tables.consumeLog();
            case COMPENSATIONS -> tables.compensationLog();
            case ATTEMPTS -> tables.eventAttempt();
        };
    }

    /** Whether the table has an {@code *_archive} twin (every table but the attempt history). */
    public boolean archivable() {
        return this != ATTEMPTS;
    }

    /** Its {@code *_archive} twin; only for an {@link #archivable()} table. */
    public String archive(TableNames tables) {
        if (!archivable()) {
            throw new IllegalStateException(field + " has no archive table");
        }
        return table(tables) + "_archive";
    }

    /** The status column, or null (consume log). */
    String statusColumn() {
        return statusColumn;
    }

    /** The column a row's age is measured on. */
    String ageColumn() {
        return statusColumn == null ? "create_time" : "update_time";
    }

    /** The SQL literal of {@code status} in its column. */
    String statusLiteral(String status) {
        if (!numericStatus) {
            return "'" + status + "'";
        }
        return String.valueOf(this == OUTBOX ? OutboxStatus.valueOf(status).code() : MessageStatus.valueOf(status).code());
    }
}
