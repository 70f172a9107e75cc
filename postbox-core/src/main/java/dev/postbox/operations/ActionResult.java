package dev.postbox.operations;

import java.util.List;

/**
 * What one action did.
 *
 * @param changed  events (or compensation rows) changed; 0 when nothing was in a status the action applies to
 * @param auditId  the audit entry (recorded also when nothing changed)
 * @param changes  each change with its status before and after
 * @param message  a sentence for a person: what changed, or why nothing did
 */
public record ActionResult(int changed, long auditId, List<AuditChange> changes, String message) {
    public ActionResult {
        changes = List.copyOf(changes);
    }
}
