package dev.postbox.spring;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.WriteResult;

import javax.sql.DataSource;
import java.util.List;
import java.util.Objects;

/**
 * The outbox for Spring applications: {@link #write} inserts the event on the connection of the current
 * Spring transaction, so it commits or rolls back with the business change made in the same
 * {@code @Transactional} method (JDBC, JdbcTemplate, JPA/Hibernate or jOOQ on the same data source alike).
 * <pre>{@code
 * @Transactional
 * public Order place(NewOrder o) {
 *     Order order = orders.insert(o);                        // the business change first
 *     outbox.write(OutboxEvent.builder()
 *             .eventNo("ORDER_CREATED:" + order.no()).aggregate("ORDER", order.no())
 *             .eventType("ORDER_CREATED").channel("MQ").topic("order.event")
 *             .payload(json(order)).build());
 *     return order;
 * }
 * }</pre>
 * With no transaction active the write is refused with {@link dev.postbox.common.TransactionRequiredException}
 * (never a silent auto-commit), and in a read-only one too. After the transaction commits, the relays of
 * this application are woken so the event goes out within milliseconds. Thread-safe.
 */
public final class TransactionalOutbox {

    private final Postbox postbox;
    private final SpringTransactions transactions;

    public TransactionalOutbox(Postbox postbox, DataSource dataSource) {
        this.postbox = Objects.requireNonNull(postbox, "postbox");
        this.transactions = new SpringTransactions(dataSource, postbox);
    }

    /**
     * Inserts {@code event} in the current transaction; a second write with the same event_no is a
     * {@link WriteResult#duplicate() duplicate} that changes nothing.
     *
     * @throws dev.postbox.common.TransactionRequiredException no Spring transaction is active, or it is read-only
     * @throws dev.postbox.common.ValidationException           the event is invalid (nothing written)
     */
    public WriteResult write(OutboxEvent event) {
        return transactions.inCurrent("outbox write", true, c -> postbox.outbox().write(c, event));
    }

    /** Inserts {@code events} in the current transaction, in as few statements as the dialect allows. */
    public List<WriteResult> writeAll(List<OutboxEvent> events) {
        return transactions.inCurrent("outbox writeAll", true, c -> postbox.outbox().writeAll(c, events));
    }

    /** The Postbox this outbox writes to. */
    public Postbox postbox() {
        return postbox;
    }
}
