package dev.postbox.examples.orders.compensation;

import dev.postbox.Postbox;
import dev.postbox.compensation.CompensationJob;
import dev.postbox.compensation.Compensations;
import dev.postbox.examples.orders.OrderProperties;
import dev.postbox.examples.orders.order.OrderEvents;
import dev.postbox.examples.orders.order.OrderStatus;
import dev.postbox.examples.orders.order.Orders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.stereotype.Component;

import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;

/**
 * Seed 003's timeout compensation: orders still CREATED {@code order.compensation.timeout} after they were
 * placed (their stock was never reserved) are cancelled, each with one ORDER_CANCELLED event. The scan finds
 * the oldest such orders, leaving out those whose cancellation Postbox already gave up on; the action, in the
 * job's transaction for that order, cancels the order only if it is still CREATED and writes the event on the
 * same connection. The compensation log makes any number of jobs, threads or processes cancel an order once.
 */
@Component
public class OrderTimeoutCancel {

    private static final Logger log = LoggerFactory.getLogger(OrderTimeoutCancel.class);

    public static final String ACTION = "TIMEOUT_CANCEL";

    private final Postbox postbox;
    private final OrderEvents events;
    private final OrderProperties.Compensation config;
    private final Clock clock;

    public OrderTimeoutCancel(Postbox postbox, OrderEvents events, OrderProperties properties, Clock clock) {
        this.postbox = postbox;
        this.events = events;
        this.config = properties.compensation();
        this.clock = clock;
    }

    /** A new, unstarted job instance (the starter starts CompensationJob beans). */
    public CompensationJob newJob() {
        return postbox.compensationJob(OrderEvents.AGGREGATE, ACTION)
                .scan(this::timedOut)
                .action(this::cancel)
                .interval(config.interval())
                .build();
    }

    private List<String> timedOut(Connection c, int limit) {
        Instant cutoff = clock.instant().minus(config.timeout());
        return JdbcClient.create(new SingleConnectionDataSource(c, true)).sql("""
                SELECT o.order_no FROM t_order o
                WHERE o.status = 'CREATED' AND o.created_at < :cutoff
                  AND NOT EXISTS (SELECT 1 FROM %s l
                                  WHERE l.biz_type = :bizType AND l.biz_key = o.order_no AND l.action_type = :action
                                    AND (l.compensate_status = 'DONE'
                                         OR (l.compensate_status = 'FAILED' AND l.attempts >= :maxAttempts)))
                ORDER BY o.created_at, o.id
                LIMIT :limit""".formatted(postbox.tables().compensationLog()))
                .param("cutoff", OffsetDateTime.ofInstant(cutoff, ZoneOffset.UTC))
                .param("bizType", OrderEvents.AGGREGATE).param("action", ACTION)
                .param("maxAttempts", Compensations.DEFAULT_MAX_ATTEMPTS)
                .param("limit", limit)
                .query(String.class)
                .list();
    }

    private void cancel(Connection c, String orderNo) {
        if (Orders.on(c).transition(orderNo, OrderStatus.CREATED, OrderStatus.CANCELLED, clock.instant())) {
            postbox.outbox().write(c, events.cancelled(orderNo, "not confirmed within " + config.timeout()));
            log.info("Order {} cancelled: not confirmed within {}", orderNo, config.timeout());
        }
    }
}
