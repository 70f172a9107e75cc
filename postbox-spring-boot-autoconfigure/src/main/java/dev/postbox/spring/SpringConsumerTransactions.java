package dev.postbox.spring;

import dev.postbox.common.PostboxException;
import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.TransactionRequiredException;
import dev.postbox.inbox.ConsumerTransactions;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * Runs each delivery of an {@link dev.postbox.inbox.EnvelopeConsumer} in a new Spring transaction of the given
 * transaction manager, with the consume-log row on the connection Spring binds to it: the handler's
 * JdbcTemplate, JdbcClient or JPA code (through a {@code JpaTransactionManager} on the same data source) joins
 * that transaction, and the row commits or rolls back with the handler's work.
 * <pre>{@code
 * EnvelopeConsumer inventory = new EnvelopeConsumer(new SpringConsumerTransactions(dataSource, transactionManager),
 *         postbox.inbox(), "inventory", (c, e) -> stock.reserve(e.aggregateId()));   // stock uses JdbcTemplate
 * }</pre>
 * {@code @PostboxListener} methods run on one of these. Always a new transaction ({@code REQUIRES_NEW}): a
 * delivery never joins a transaction of its caller. Thread-safe.
 */
public final class SpringConsumerTransactions implements ConsumerTransactions {

    private final DataSource dataSource;
    private final TransactionTemplate template;

    public SpringConsumerTransactions(DataSource dataSource, PlatformTransactionManager transactionManager) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.template = new TransactionTemplate(Objects.requireNonNull(transactionManager, "transactionManager"));
        this.template.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    }

    @Override
    public <T> T inTransaction(String description, Work<T> work) {
        return template.execute(status -> {
            Connection c = DataSourceUtils.getConnection(dataSource);
            try {
                if (c.getAutoCommit()) {
                    throw new TransactionRequiredException(description, "the transaction manager does not cover the"
                            + " Postbox data source (its connection is in auto-commit mode); give the consumer the"
                            + " transaction manager of that data source");
                }
                return work.run(c);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (SQLException e) {
                throw new PostboxSqlException(description, e);
            } catch (Exception e) {
                throw new PostboxException(description + ": " + e, e);
            } finally {
                DataSourceUtils.releaseConnection(c, dataSource);
            }
        });
    }
}
