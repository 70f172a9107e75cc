package dev.postbox.common;

import java.sql.SQLException;

/** A database call failed; wraps the driver's {@link SQLException} and keeps its SQLState. */
public final class PostboxSqlException extends PostboxException {

    private final String sqlState;

    public PostboxSqlException(String what, SQLException cause) {
        super(what + " failed: " + cause.getMessage() + " [SQLState " + cause.getSQLState()
                + ", error " + cause.getErrorCode() + "]", cause);
        this.sqlState = cause.getSQLState();
    }

    /** The SQLState the driver reported, may be null. */
    public String sqlState() {
        return sqlState;
    }
}
