package dev.postbox.spring;

import dev.postbox.Postbox;
import dev.postbox.inbox.Inbox;
import dev.postbox.inbox.InboxResult;

import javax.sql.DataSource;
import java.util.Objects;

/**
 * The idempotent consumer for Spring applications: runs a consumer's work once per event, inside the current
 * Spring transaction, guarded by the consume log's unique key.
 * <pre>{@code
 * @Transactional
 * public void onOrderCreated(String eventNo, String orderNo) {
 *     inbox.once("inventory", eventNo, () -> stock.reserve(orderNo));   // a redelivery does nothing
 * }
 * }</pre>
 * A duplicate returns {@link InboxResult#duplicate()} and runs nothing; work that throws is undone to a
 * savepoint and the exception propagates (so the transaction and the delivery fail and the event comes
 * again). Thread-safe.
 */
public final class TransactionalInbox {

    private final Postbox postbox;
    private final SpringTransactions transactions;

    public TransactionalInbox(Postbox postbox, DataSource dataSource) {
        this.postbox = Objects.requireNonNull(postbox, "postbox");
        this.transactions = new SpringTransactions(dataSource, postbox);
    }

    /** Runs {@code work} once per ({@code consumer}, {@code eventNo}) in the current transaction. */
    public <T> InboxResult<T> once(String consumer, String eventNo, Inbox.Work<T> work) {
        return transactions.inCurrent("inbox once", false, c -> postbox.inbox().once(c, consumer, eventNo, work));
    }

    /** Runs {@code action} once per ({@code consumer}, {@code eventNo}) in the current transaction. */
    public InboxResult<Void> once(String consumer, String eventNo, Inbox.Action action) {
        return transactions.inCurrent("inbox once", false, c -> postbox.inbox().once(c, consumer, eventNo, action));
    }
}
