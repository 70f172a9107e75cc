package dev.postbox.test.spring.shop;

import dev.postbox.spi.Envelope;
import dev.postbox.spring.PostboxListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The inventory consumer: a {@code @PostboxListener} on the in-process event bus that reserves stock once per
 * ORDER_CREATED event, however often it arrives (its insert joins the listener's transaction with the consume-log row).
 * Orders of an item in {@link #outOfStock} fail.
 */
@Component
public class Inventory {

    /** Items whose reservation fails ("out of stock"), for tests of a failing consumer. */
    public final Set<String> outOfStock = ConcurrentHashMap.newKeySet();

    private final JdbcTemplate jdbc;

    public Inventory(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @PostboxListener(consumer = "inventory", topics = "order.created", eventTypes = "ORDER_CREATED")
    void onOrderCreated(String payload, Envelope event) {
        jdbc.update("INSERT INTO reservation (event_no, order_no) VALUES (?, ?)", event.eventNo(), event.aggregateId());
        outOfStock.forEach(item -> {
            if (payload.contains("\"" + item + "\"")) {
                throw new IllegalStateException("out of stock: " + item);
            }
        });
    }
}
