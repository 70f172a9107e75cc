package dev.postbox.spring;

import dev.postbox.Postbox;
import dev.postbox.compensation.CompensationResult;
import dev.postbox.compensation.Compensations;

import javax.sql.DataSource;
import java.util.Objects;

/**
 * The compensation guard for Spring applications: runs each (bizType, bizKey, actionType) compensation to
 * completion once, inside the current Spring transaction, for compensations triggered by application code
 * (a scheduled scan is better served by a {@code CompensationJob} bean).
 * <pre>{@code
 * @Transactional
 * public void releaseStock(String orderNo) {
 *     compensations.once("ORDER", orderNo, "RELEASE_STOCK", c -> stock.release(orderNo));
 * }
 * }</pre>
 * A failing action is rolled back to a savepoint and recorded FAILED (returned, not thrown): the transaction
 * goes on and commits the record. Thread-safe.
 */
public final class TransactionalCompensations {

    private final Postbox postbox;
    private final SpringTransactions transactions;

    public TransactionalCompensations(Postbox postbox, DataSource dataSource) {
        this.postbox = Objects.requireNonNull(postbox, "postbox");
        this.transactions = new SpringTransactions(dataSource, postbox);
    }

    /** {@link Compensations#once} with {@value Compensations#DEFAULT_MAX_ATTEMPTS} attempts, in the current transaction. */
    public <T> CompensationResult<T> once(String bizType, String bizKey, String actionType, Compensations.Action<T> action) {
        return transactions.inCurrent("compensation once", true,
                c -> postbox.compensations().once(c, bizType, bizKey, actionType, action));
    }

    /** {@link Compensations#once} with {@code maxAttempts}, in the current transaction. */
    public <T> CompensationResult<T> once(String bizType, String bizKey, String actionType, int maxAttempts,
                                          Compensations.Action<T> action) {
        return transactions.inCurrent("compensation once", true,
                c -> postbox.compensations().once(c, bizType, bizKey, actionType, maxAttempts, action));
    }
}
