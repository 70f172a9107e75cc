package dev.postbox.operations;

import java.util.EnumSet;
import java.util.Set;

/**
 * The console's roles. Revealing payloads is a permission of its own: no role but {@link #ADMIN} has it,
 * and a deployment grants it to others explicitly.
 */
public enum Role {
    /** Looks, changes nothing. */
    VIEWER(EnumSet.of(Permission.VIEW)),
    /** Fixes: retries and cancels, one at a time or in bulk. */
    OPERATOR(EnumSet.of(Permission.VIEW, Permission.RETRY, Permission.CANCEL, Permission.BULK)),
    /** Everything, payloads included. */
    ADMIN(EnumSet.allOf(Permission.class));

    private final Set<Permission> permissions;

    Role(Set<Permission> permissions) {
        this.permissions = Set.copyOf(permissions);
    }

    public Set<Permission> permissions() {
        return permissions;
    }
}
