package dev.postbox.examples.orders.inventory;

import dev.postbox.examples.orders.order.OrderEvents;
import dev.postbox.examples.orders.order.OrderStatus;
import dev.postbox.examples.orders.order.Orders;
import dev.postbox.inbox.InboxResult;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.spring.TransactionalInbox;
import dev.postbox.spring.TransactionalOutbox;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import javax.sql.DataSource;
import java.time.Clock;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The inventory consumer of ORDER_CREATED: reserves the stock, records the reservation, confirms the order and
 * writes ORDER_CONFIRMED, all in one transaction together with the consume-log row of consumer
 * {@value #CONSUMER}, so a redelivered event changes nothing.
 *
 * <p>Not enough stock is a business outcome, not a failure: the event is recorded as handled (a retry would
 * find the same stock and fail forever), the order stays CREATED and the timeout job cancels it later; it is
 * logged at WARN. An order that is no longer CREATED (already cancelled) is left alone in the same way.
 *
 * <p>A failure is an exception: an order of {@link PoisonSku#SKU} before the demo's fix. Nothing of the delivery
 * commits (not even the consume-log row), the relay retries the event and makes it DEAD after its retries.
 */
@Service
public class InventoryService {

    private static final Logger log = LoggerFactory.getLogger(InventoryService.class);

    /** The consumer name in the consume log. */
    public static final String CONSUMER = "inventory";

    /** What one delivery did. */
    public enum Outcome {
        /** Stock reserved, order CONFIRMED, ORDER_CONFIRMED written. */
        RESERVED,
        /** Not enough stock: nothing reserved, the order stays CREATED until the timeout job cancels it. */
        OUT_OF_STOCK,
        /** The order is not CREATED any more (cancelled meanwhile) or does not exist: nothing done. */
        ORDER_NOT_CREATED,
        /** The consume log already has this event: nothing done. */
        DUPLICATE
    }

    private final DataSource dataSource;
    private final TransactionalInbox inbox;
    private final TransactionalOutbox outbox;
    private final OrderEvents events;
    private final Clock clock;
    private final PoisonSku poison;

    public InventoryService(DataSource dataSource, TransactionalInbox inbox, TransactionalOutbox outbox,
                            OrderEvents events, Clock clock, PoisonSku poison) {
        this.dataSource = dataSource;
        this.inbox = inbox;
        this.outbox = outbox;
        this.events = events;
        this.clock = clock;
        this.poison = poison;
    }

    /** Handles one delivery of the ORDER_CREATED event {@code eventNo} in a Spring transaction of its own. */
    @Transactional
    public Outcome onOrderCreated(String eventNo, String payload) {
        InboxResult<Outcome> r = inbox.once(CONSUMER, eventNo,
                () -> reserve(Orders.of(dataSource), Stock.of(dataSource), outbox::write, payload));
        return r.duplicate() ? Outcome.DUPLICATE : r.value();
    }

    /**
     * The work of one delivery inside the current Spring transaction, whose consume-log row someone else holds (the
     * starter's {@code @PostboxListener} container, {@link InventoryListeners}): commits nothing itself.
     */
    public Outcome reserve(String payload) {
        return reserve(Orders.of(dataSource), Stock.of(dataSource), outbox::write, payload);
    }

    private Outcome reserve(Orders orders, Stock stock, Consumer<OutboxEvent> outboxWriter, String payload) {
        OrderEvents.Created e = events.readCreated(payload);
        poison.check(e.sku()); // the demo's failing dependency: throws, so nothing of this delivery commits
        // The order's row lock first: the timeout job's cancel waits for us (or we see CANCELLED), never both.
        Optional<OrderStatus> status = orders.lockStatus(e.orderNo());
        if (status.isEmpty() || status.get() != OrderStatus.CREATED) {
            log.info("Order {} is {}; nothing reserved", e.orderNo(), status.map(Enum::name).orElse("unknown"));
            return Outcome.ORDER_NOT_CREATED;
        }
        if (!stock.reserve(e.sku(), e.quantity())) {
            log.warn("Order {}: not enough stock of {} for {}; it stays CREATED until the timeout job cancels it",
                    e.orderNo(), e.sku(), e.quantity());
            return Outcome.OUT_OF_STOCK;
        }
        stock.recordReservation(e.orderNo(), e.sku(), e.quantity());
        orders.transition(e.orderNo(), OrderStatus.CREATED, OrderStatus.CONFIRMED, clock.instant());
        outboxWriter.accept(events.confirmed(e.orderNo(), e.sku(), e.quantity()));
        return Outcome.RESERVED;
    }
}
