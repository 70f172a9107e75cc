package dev.postbox.spring;

import dev.postbox.Postbox;
import dev.postbox.message.MessageEvent;
import dev.postbox.outbox.WriteResult;

import javax.sql.DataSource;
import java.util.Objects;

/**
 * Message events (seed 000's {@code biz_message_event}, handled by the starter's message worker) for Spring
 * applications: {@link #create} inserts the event on the connection of the current Spring transaction, so it
 * commits or rolls back with the business change of the same {@code @Transactional} method.
 * <pre>{@code
 * @Transactional
 * public void pay(String orderNo) {
 *     payments.record(orderNo);
 *     messageEvents.create(MessageEvent.builder()
 *             .eventNo("PAYMENT_SUCCESS:" + orderNo).biz("ORDER", orderNo)
 *             .eventType("PAYMENT_SUCCESS").payload("{\"orderNo\":\"" + orderNo + "\"}").build());
 * }
 * }</pre>
 * With no transaction active (or a read-only one) the create is refused with
 * {@link dev.postbox.common.TransactionRequiredException}, never auto-committed. Thread-safe.
 */
public final class TransactionalMessageEvents {

    private final Postbox postbox;
    private final SpringTransactions transactions;

    public TransactionalMessageEvents(Postbox postbox, DataSource dataSource) {
        this.postbox = Objects.requireNonNull(postbox, "postbox");
        this.transactions = new SpringTransactions(dataSource, postbox);
    }

    /**
     * Inserts {@code event} in the current transaction; a second create with the same event_no is a
     * {@link WriteResult#duplicate() duplicate} that changes nothing.
     *
     * @throws dev.postbox.common.TransactionRequiredException no Spring transaction is active, or it is read-only
     * @throws dev.postbox.common.ValidationException           the event is invalid (nothing written)
     */
    public WriteResult create(MessageEvent event) {
        return transactions.inCurrent("message event create", false, c -> postbox.messages().create(c, event));
    }
}
