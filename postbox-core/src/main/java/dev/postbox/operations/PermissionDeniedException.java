package dev.postbox.operations;

import dev.postbox.common.PostboxException;

/** The operator lacks the permission an operation needs, or the console is read-only; nothing was read or written. */
public class PermissionDeniedException extends PostboxException {

    private final String operator;
    private final Permission permission;

    public PermissionDeniedException(String operator, Permission permission, String why) {
        super(operator + " may not " + permission.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + ": " + why);
        this.operator = operator;
        this.permission = permission;
    }

    public String operator() {
        return operator;
    }

    public Permission permission() {
        return permission;
    }
}
