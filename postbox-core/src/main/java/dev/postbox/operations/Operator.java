package dev.postbox.operations;

import dev.postbox.internal.Check;

import java.util.EnumSet;
import java.util.Set;

/**
 * Who asks, as the authentication in front of the console established it: a name that goes into the audit
 * log and the permissions checked before anything happens.
 *
 * @param name        the operator's identity, 1..128 characters
 * @param permissions what the operator may do
 */
public record Operator(String name, Set<Permission> permissions) {

    public Operator {
        Check.required("operator.name", name, 128);
        permissions = permissions == null || permissions.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(permissions));
    }

    /** An operator with the permissions of {@code roles} together. */
    public static Operator of(String name, Role... roles) {
        EnumSet<Permission> all = EnumSet.noneOf(Permission.class);
        for (Role r : roles) {
            all.addAll(r.permissions());
        }
        return new Operator(name, all);
    }

    /** This operator with {@code extra} permissions added (e.g. an operator allowed to reveal payloads). */
    public Operator with(Permission... extra) {
        EnumSet<Permission> all = permissions.isEmpty() ? EnumSet.noneOf(Permission.class) : EnumSet.copyOf(permissions);
        all.addAll(Set.of(extra));
        return new Operator(name, all);
    }

    public boolean may(Permission p) {
        return permissions.contains(p);
    }
}
