package dev.postbox.examples.orders;

import dev.postbox.compensation.CompensationJob;
import dev.postbox.examples.orders.inventory.InventoryService;
import dev.postbox.examples.orders.order.OrderService;
import dev.postbox.examples.orders.order.OrderStatus;
import dev.postbox.examples.orders.order.PlaceOrder;
import dev.postbox.test.InvariantChecker;
import dev.postbox.test.RecordingPublisher;
import dev.postbox.test.TestClock;
import dev.postbox.test.spring.PostboxAwait;
import dev.postbox.test.spring.PostboxTest;
import dev.postbox.Postbox;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;

import javax.sql.DataSource;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order service under postbox-test's {@code @PostboxTest} (H2, the in-process event bus): the relay publishes
 * through the recording publisher, the application's clock is the test clock, and the tests wait with
 * {@link PostboxAwait} instead of polling: the inventory listener confirms an order, a lost acknowledgement is a
 * duplicate the consume log absorbs, and seed 003's 10-minute timeout cancels an order when the test clock says so.
 */
@PostboxTest(properties = {"order.demo.seed-orders=0", "spring.datasource.url=jdbc:h2:mem:orders-kit;DB_CLOSE_DELAY=-1"})
class OrderServicePostboxTest {

    @Autowired OrderService orders;
    @Autowired JdbcClient jdbc;
    @Autowired RecordingPublisher publisher;
    @Autowired PostboxAwait postbox;
    @Autowired TestClock clock;
    @Autowired List<CompensationJob> jobs;
    @Autowired Postbox postboxCore;
    @Autowired DataSource dataSource;

    @BeforeEach
    void healed() {
        publisher.heal();
    }

    private String place(String sku) {
        return orders.place(new PlaceOrder("kit-user", sku, 1, new BigDecimal("9.90"))).orderNo();
    }

    private String status(String orderNo) {
        return jdbc.sql("SELECT status FROM t_order WHERE order_no = ?").param(orderNo).query(String.class).single();
    }

    @Test
    void theInventoryListenerConfirmsAnOrderAndItsConfirmationIsPublished() {
        String orderNo = place("SKU-1");

        postbox.awaitConsumed(InventoryService.CONSUMER, "ORDER_CREATED:" + orderNo);
        assertThat(status(orderNo)).isEqualTo(OrderStatus.CONFIRMED.name());

        postbox.awaitQuiescence();
        publisher.assertPublished("ORDER_CREATED:" + orderNo, "ORDER_CONFIRMED:" + orderNo);
        publisher.assertInOrderPerAggregate();
    }

    @Test
    void aLostAcknowledgementRedeliversTheOrderAndStockIsReservedOnce() {
        publisher.loseAckWhen(e -> e.eventType().equals("ORDER_CREATED") && e.payload().contains("SKU-2")
                && publisher.copies(e.eventNo()) == 0);
        String orderNo = place("SKU-2");
        postbox.awaitQuiescence();                     // delivered and reserved, but the relay thinks it failed

        clock.advance(Duration.ofMinutes(1));          // its retry is due
        postbox.awaitQuiescence();

        publisher.assertPublishedTimes("ORDER_CREATED:" + orderNo, 2);
        assertThat(jdbc.sql("SELECT COUNT(*) FROM t_stock_reservation WHERE order_no = ?").param(orderNo)
                .query(Long.class).single()).as("reserved once").isEqualTo(1);
        // every event of the topic reaches the inventory's listener (it acts on ORDER_CREATED only): one row each
        InvariantChecker.of(postboxCore, dataSource).withDeliveries(publisher).assertInboxEffectsOnce(InventoryService.CONSUMER);
    }

    @Test
    void anOrderNeverConfirmedIsCancelledOnceTheTestClockPassesItsTimeout() {
        String orderNo = place("SKU-NONE");           // no stock: it stays CREATED
        postbox.awaitConsumed(InventoryService.CONSUMER, "ORDER_CREATED:" + orderNo);
        jobs.forEach(CompensationJob::runOnce);
        assertThat(status(orderNo)).as("not yet: 10 minutes have not passed").isEqualTo(OrderStatus.CREATED.name());

        clock.advance(Duration.ofMinutes(11));
        jobs.forEach(CompensationJob::runOnce);
        assertThat(status(orderNo)).isEqualTo(OrderStatus.CANCELLED.name());

        postbox.awaitQuiescence();
        publisher.assertPublished("ORDER_CANCELLED:" + orderNo);
        publisher.assertNotPublished("ORDER_CONFIRMED:" + orderNo);
    }
}
