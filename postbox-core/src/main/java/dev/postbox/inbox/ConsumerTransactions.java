package dev.postbox.inbox;

import dev.postbox.common.PostboxException;
import dev.postbox.common.PostboxSqlException;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * The transaction boundary of an {@link EnvelopeConsumer}: runs one delivery's work (the consume-log row and
 * the handler) in one transaction on the consumer's database, commits it when the work returns and rolls it
 * back when it throws. {@link #jdbc(DataSource)} opens a connection of its own per delivery; a framework
 * binding supplies its own so that the handler's data-access code joins the same transaction (the Spring
 * starter's runs in a Spring transaction: JdbcTemplate, JdbcClient and JPA code in the handler take part in it).
 * Implementations are thread-safe.
 */
public interface ConsumerTransactions {

    /** One delivery's work, on the transaction's connection; it must not commit, roll back or close it. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection connection) throws Exception;
    }

    /**
     * Runs {@code work} in a new transaction and commits it; when {@code work} throws, nothing of it is committed
     * and its exception propagates (a checked one wrapped). {@code description} names the delivery in errors.
     *
     * @throws PostboxSqlException the database failed to open, commit or roll back the transaction
     */
    <T> T inTransaction(String description, Work<T> work);

    /** A connection of {@code dataSource} per delivery, in manual-commit mode for the work, restored before it is closed. */
    static ConsumerTransactions jdbc(DataSource dataSource) {
        Objects.requireNonNull(dataSource, "dataSource");
        return new ConsumerTransactions() {
            @Override
            public <T> T inTransaction(String description, Work<T> work) {
                try (Connection c = dataSource.getConnection()) {
                    boolean autoCommit = c.getAutoCommit();
                    c.setAutoCommit(false);
                    try {
                        T result = work.run(c);
                        c.commit();
                        return result;
                    } catch (RuntimeException | Error e) {
                        rollbackQuietly(c, e);
                        throw e;
                    } catch (SQLException e) {
                        rollbackQuietly(c, e);
                        throw new PostboxSqlException(description, e);
                    } catch (Exception e) {
                        rollbackQuietly(c, e);
                        throw new PostboxException(description + ": " + e, e);
                    } finally {
                        c.setAutoCommit(autoCommit);
                    }
                } catch (SQLException e) {
                    throw new PostboxSqlException(description, e);
                }
            }

            @Override
            public String toString() {
                return "ConsumerTransactions.jdbc(" + dataSource + ")";
            }
        };
    }

    private static void rollbackQuietly(Connection c, Throwable cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }
}
