package dev.postbox.common;

import java.sql.SQLException;

/** A database call failed; wraps the driver's {@link SQLException} and keeps its SQLState. */
public final class PostboxSqlException extends PostboxException {

    private final String sqlState;

    public PostboxSqlException(String what, SQLException cause) {
        super(what + " failed: " + cause.getMessage() + " [SQLState " + cause.getSQLState()
                + ", error " + cause.getErrorCode() + "]" + (rolledBack(cause.getSQLState())
                ? "; the database rolled the whole transaction back (a deadlock or serialization conflict, e.g. with a"
                + " concurrent transaction on the same key): nothing of it remains, it may be run again from its start"
                : ""), cause);
        this.sqlState = cause.getSQLState();
    }

    /** The SQLState the driver reported, may be null. */
    public String sqlState() {
        return sqlState;
    }

    /**
     * Whether the database rolled the caller's whole transaction back to break a deadlock or a serialization
     * conflict (SQLState class 40: MySQL/MariaDB error 1213, PostgreSQL 40P01 and 40001, H2 40001). Nothing of
     * the transaction remains and its connection may be used again; the caller may run the transaction again
     * from its start. Postbox never does so itself, since the transaction is the caller's. Postbox's own
     * statements lock only the rows of their own keys, so this happens when transactions meet on a key (the
     * same event, inbox entry or compensation at once) or on the caller's own rows.
     */
    public boolean retryable() {
        return rolledBack(sqlState);
    }

    private static boolean rolledBack(String sqlState) {
        return sqlState != null && sqlState.startsWith("40");
    }
}
