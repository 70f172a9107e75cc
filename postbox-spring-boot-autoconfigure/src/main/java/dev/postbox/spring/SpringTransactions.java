package dev.postbox.spring;

import dev.postbox.Postbox;
import dev.postbox.common.PostboxException;
import dev.postbox.common.TransactionRequiredException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.function.Function;

/** Runs Postbox calls on the connection bound to the current Spring transaction. */
final class SpringTransactions {

    private final DataSource dataSource;
    private final Postbox postbox;
    /** Marks a transaction that already has the after-commit wake-up registered. */
    private final Object wakeKey = new Object();

    SpringTransactions(DataSource dataSource, Postbox postbox) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.postbox = Objects.requireNonNull(postbox, "postbox");
    }

    /**
     * Runs {@code call} on the current transaction's connection; {@code wakesRelays} for calls that write (or hand
     * the connection to code that writes) outbox events, whose commit should wake the relays of this JVM. The
     * inbox does not: its work writes events through {@link TransactionalOutbox}, which wakes them itself, and
     * a consumer that writes none would only cost the relay an empty claim per delivery.
     */
    <T> T inCurrent(String operation, boolean wakesRelays, Function<Connection, T> call) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new TransactionRequiredException(operation, "no Spring transaction is active: call it from a"
                    + " @Transactional method or inside TransactionTemplate.execute");
        }
        if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
            throw new TransactionRequiredException(operation, "the current Spring transaction is read-only");
        }
        Connection c = DataSourceUtils.getConnection(dataSource);
        try {
            if (c.getAutoCommit()) {
                // A transaction is active, but not on this data source (e.g. a JTA or another DataSource's
                // transaction manager): Spring handed out a connection outside it.
                throw new TransactionRequiredException(operation, "the active Spring transaction does not cover"
                        + " the Postbox data source (its connection is in auto-commit mode); use a transaction manager"
                        + " for that data source");
            }
            T result = call.apply(c);
            if (wakesRelays) {
                wakeRelaysAfterCommit();
            }
            return result;
        } catch (SQLException e) {
            throw new PostboxException("reading the transaction state of the Spring-bound connection: " + e, e);
        } finally {
            DataSourceUtils.releaseConnection(c, dataSource);
        }
    }

    private void wakeRelaysAfterCommit() {
        if (!TransactionSynchronizationManager.isSynchronizationActive()
                || TransactionSynchronizationManager.hasResource(wakeKey)) {
            return;
        }
        TransactionSynchronizationManager.bindResource(wakeKey, Boolean.TRUE);
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                postbox.wakeRelays();
            }

            @Override
            public void afterCompletion(int status) {
                TransactionSynchronizationManager.unbindResourceIfPossible(wakeKey);
            }

            @Override
            public void suspend() {
                TransactionSynchronizationManager.unbindResourceIfPossible(wakeKey);
            }

            @Override
            public void resume() {
                TransactionSynchronizationManager.bindResource(wakeKey, Boolean.TRUE);
            }
        });
    }
}
