package dev.postbox.operations;

import java.time.Instant;

/**
 * How a bulk action ended.
 *
 * @param auditId  its audit entry
 * @param changed  events changed
 * @param skipped  events the dry run counted (up to the cap) that no longer applied when the action reached them
 *                 (e.g. published meanwhile) and were left alone
 * @param status   DONE or FAILED
 * @param error    why it failed (the events changed before stay changed and are in the audit log)
 */
public record BulkResult(long auditId, int changed, int skipped, String status, String error, Instant started,
                         Instant finished) {
}
