package dev.postbox.operations;

import java.time.Instant;

/**
 * Which audit entries to list; null fields are "any".
 *
 * @param actor   only this operator's
 * @param action  only this action
 * @param eventNo only actions that changed or revealed this event
 * @param from    created at or after
 * @param before  created before
 */
public record AuditQuery(String actor, String action, String eventNo, Instant from, Instant before) {

    public static AuditQuery all() {
        return new AuditQuery(null, null, null, null, null);
    }
}
