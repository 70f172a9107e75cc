package dev.postbox.examples.orders.order;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.query.PageRequest;
import dev.postbox.spring.TransactionalOutbox;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import javax.sql.DataSource;
import java.time.Clock;
import java.util.List;
import java.util.UUID;

/** Places orders (the order row and its ORDER_CREATED event in one transaction) and reads them back with their events. */
@Service
public class OrderService {

    private final Orders orders;
    private final TransactionalOutbox outbox;
    private final OrderEvents events;
    private final Postbox postbox;
    private final Clock clock;

    public OrderService(DataSource dataSource, TransactionalOutbox outbox, OrderEvents events, Postbox postbox, Clock clock) {
        this.orders = Orders.of(dataSource);
        this.outbox = outbox;
        this.events = events;
        this.postbox = postbox;
        this.clock = clock;
    }

    /**
     * Inserts the order (CREATED) and then its ORDER_CREATED event, in this order, in one transaction: both
     * commit or neither does, and the event's id follows the order row's lock (DESIGN.md section 4, order).
     */
    @Transactional
    public Order place(PlaceOrder request) {
        String orderNo = "ORD-" + UUID.randomUUID().toString().replace("-", "");
        Order order = new Order(orderNo, request.userId(), request.sku(), request.quantity(), request.amount(),
                OrderStatus.CREATED, 0, clock.instant(), clock.instant());
        orders.insert(order);
        outbox.write(events.created(order));
        return order;
    }

    /**
     * Adds a customer's note to the order: one ORDER_NOTE_ADDED event of the order's aggregate, so it is published
     * after the order's earlier events (and waits while one of them is FAILED or DEAD). Returns its event number.
     */
    @Transactional
    public String addNote(String orderNo, String text) {
        orders.find(orderNo).orElseThrow(() -> new OrderNotFoundException(orderNo));
        String noteId = UUID.randomUUID().toString().substring(0, 8);
        var event = events.noteAdded(orderNo, noteId, text);
        outbox.write(event);
        return event.eventNo();
    }

    /** The order and the first 50 of its events in publication order. */
    public OrderDetails details(String orderNo) {
        Order order = orders.find(orderNo).orElseThrow(() -> new OrderNotFoundException(orderNo));
        List<OutboxRecord> history = postbox.queries().outbox()
                .byAggregate(OrderEvents.AGGREGATE, orderNo, PageRequest.first(50)).items();
        return new OrderDetails(order, history);
    }

    /** An order and its outbox events. */
    public record OrderDetails(Order order, List<OutboxRecord> events) {
    }
}
