package dev.postbox.operations;

import java.time.Instant;

/**
 * One operator action ({@code biz_admin_action}).
 *
 * @param action      RETRY, CANCEL, CANCEL_SEQUENCE, RETRY_COMPENSATION, BULK_RETRY, BULK_CANCEL or REVEAL_PAYLOAD
 * @param target      OUTBOX, MESSAGE, COMPENSATION or AGGREGATE
 * @param filter      the event_no, aggregate, compensation key or search text it applied to
 * @param dryRunCount what the dry run of a bulk action matched, else null
 * @param cap         the most a bulk action could change, else null
 * @param status      RUNNING, DONE or FAILED
 */
public record AuditEntry(long id, String action, String target, String filter, Long dryRunCount, Integer cap,
                         int changed, String status, String actor, String reason, String error, Instant createTime,
                         Instant finishTime) {
}
