package dev.postbox.smoke;

import dev.postbox.outbox.OutboxEvent;
import dev.postbox.relay.EventBus;
import dev.postbox.spring.TransactionalOutbox;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders: the business row and its ORDER_CREATED event commit or roll back together. */
@Service
public class Orders {

    public static final String TOPIC = "order.event";

    private final JdbcTemplate jdbc;
    private final TransactionalOutbox outbox;

    public Orders(JdbcTemplate jdbc, TransactionalOutbox outbox) {
        this.jdbc = jdbc;
        this.outbox = outbox;
    }

    public static String eventNo(String orderNo) {
        return "ORDER_CREATED:" + orderNo;
    }

    /** Inserts the order and its event for {@code channel}; {@code fail} throws after both, rolling them back. */
    @Transactional
    public void place(String orderNo, String channel, boolean fail) {
        jdbc.update("INSERT INTO smoke_order (order_no, status) VALUES (?, 'CREATED')", orderNo);
        outbox.write(event(orderNo, channel));
        if (fail) {
            throw new IllegalStateException("order " + orderNo + " rolled back on purpose");
        }
    }

    /** The same write outside any transaction: the outbox refuses it. */
    public void writeWithoutTransaction(String orderNo) {
        outbox.write(event(orderNo, EventBus.CHANNEL));
    }

    private static OutboxEvent event(String orderNo, String channel) {
        return OutboxEvent.builder().eventNo(eventNo(orderNo)).aggregate("ORDER", orderNo).eventType("ORDER_CREATED")
                .channel(channel).topic(TOPIC).payload("{\"orderNo\":\"" + orderNo + "\"}").build();
    }
}
