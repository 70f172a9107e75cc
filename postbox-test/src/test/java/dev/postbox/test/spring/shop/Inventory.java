package dev.postbox.test.spring.shop;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.relay.EventBus;
import dev.postbox.spring.TransactionalInbox;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/** The inventory consumer: reserves stock once per ORDER_CREATED event, however often it arrives. */
@Component
public class Inventory {

    private final TransactionalInbox inbox;
    private final TransactionTemplate tx;
    private final JdbcTemplate jdbc;

    public Inventory(EventBus bus, TransactionalInbox inbox, TransactionTemplate tx, JdbcTemplate jdbc) {
        this.inbox = inbox;
        this.tx = tx;
        this.jdbc = jdbc;
        bus.subscribe("order.created", this::onOrderCreated);
    }

    private void onOrderCreated(OutboxRecord event) {
        tx.executeWithoutResult(status -> inbox.once("inventory", event.eventNo(), () -> jdbc.update(
                "INSERT INTO reservation (event_no, order_no) VALUES (?, ?)", event.eventNo(), event.aggregateId())));
    }
}
