package dev.postbox.common;

/**
 * A write that must share the caller's transaction was given a connection in auto-commit mode (or, in a
 * framework, was called with no usable transaction).
 * Postbox refuses rather than commit the event on its own, apart from the business change.
 */
public final class TransactionRequiredException extends PostboxException {

    public TransactionRequiredException(String operation) {
        super(operation + " must run inside the caller's transaction, but the connection is in auto-commit mode;"
                + " call connection.setAutoCommit(false) (or use @Transactional) and commit after the business change");
    }

    /** For frameworks that know why there is no usable transaction (e.g. none is active in Spring). */
    public TransactionRequiredException(String operation, String why) {
        super(operation + " must run inside the caller's transaction, but " + why);
    }
}
