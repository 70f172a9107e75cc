package dev.postbox.operations;

import java.time.Instant;

/** One event an audited action changed ({@code biz_admin_log}). */
public record AuditChange(long id, Long actionId, String table, String eventNo, String action, String fromStatus,
                          String toStatus, String actor, String reason, Instant time) {
}
