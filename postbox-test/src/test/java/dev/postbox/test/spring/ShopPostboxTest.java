package dev.postbox.test.spring;

import dev.postbox.Postbox;
import dev.postbox.test.InvariantChecker;
import dev.postbox.test.RecordingPublisher;
import dev.postbox.test.TestClock;
import dev.postbox.test.spring.shop.Inventory;
import dev.postbox.test.spring.shop.OrderService;
import dev.postbox.test.spring.shop.ShopApplication;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code @PostboxTest} on a small shop application (H2): the test kit swapped in, and awaitQuiescence without sleeps. */
@PostboxTest(classes = ShopApplication.class, properties = {
        "spring.datasource.url=jdbc:h2:mem:shop;DB_CLOSE_DELAY=-1",
        "spring.sql.init.schema-locations=classpath:shop/schema.sql",
        "spring.application.name=shop"})
class ShopPostboxTest {

    @Autowired
    OrderService orders;
    @Autowired
    RecordingPublisher publisher;
    @Autowired
    PostboxAwait postboxAwait;
    @Autowired
    TestClock clock;
    @Autowired
    Clock applicationClock;
    @Autowired
    Postbox postbox;
    @Autowired
    DataSource dataSource;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    Inventory inventory;

    /** The context, its database and the deliveries are shared by the tests; the injections are each test's own. */
    @BeforeEach
    void noInjections() {
        publisher.heal();
        inventory.outOfStock.clear();
    }

    @Test
    void awaitConsumedReturnsOnceTheListenerCommittedAndNamesTheLastFailureWhenItDoesNot() {
        orders.place("o-5", "cup");
        postboxAwait.awaitConsumed("inventory", "ORDER_CREATED:o-5");
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM reservation WHERE order_no = 'o-5'", Long.class))
                .as("the listener's work is committed when awaitConsumed returns").isEqualTo(1);

        inventory.outOfStock.add("vase");
        orders.place("o-6", "vase");
        assertThatThrownBy(() -> postboxAwait.awaitConsumed(Duration.ofMillis(500), "inventory", "ORDER_CREATED:o-6"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("consumer 'inventory' has not consumed [ORDER_CREATED:o-6]")
                .hasMessageContaining("its last failure: event ORDER_CREATED:o-6 on EVENT_BUS")
                .hasMessageContaining("out of stock: vase");
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM reservation WHERE order_no = 'o-6'", Long.class))
                .as("the failed delivery's insert rolled back with it").isZero();

        inventory.outOfStock.clear();
        clock.advance(Duration.ofMinutes(1)); // the event bus failed the event: the relay's backoff, by the test clock
        postboxAwait.awaitConsumed("inventory", "ORDER_CREATED:o-6");
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM reservation WHERE order_no = 'o-6'", Long.class)).isEqualTo(1);
    }

    @Test
    void awaitConsumedFailsAtOnceWhenTheEventIsDead() {
        publisher.rejectWhen(e -> e.eventNo().equals("ORDER_CREATED:o-7")); // not retryable: DEAD at once
        orders.place("o-7", "mug");
        long started = System.nanoTime();
        assertThatThrownBy(() -> postboxAwait.awaitConsumed("inventory", "ORDER_CREATED:o-7"))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("consumer 'inventory' cannot consume ORDER_CREATED:o-7: the event is DEAD in the"
                        + " outbox (").hasMessageContaining(RecordingPublisher.INJECTED_REJECTION);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("at once, not after the timeout")
                .isLessThan(PostboxAwait.DEFAULT_TIMEOUT);
        // the context is shared: the order's events (its audit event waits behind the DEAD one) leave with this test
        jdbc.update("DELETE FROM " + postbox.tables().outbox() + " WHERE aggregate_id = 'o-7'");
    }

    @Test
    void anOrderIsPublishedConsumedAndReceiptedAndTheApplicationRunsOnTheTestClock() {
        orders.place("o-1", "book");

        postboxAwait.awaitQuiescence();

        publisher.assertPublished("ORDER_CREATED:o-1", "ORDER_AUDIT:o-1");
        publisher.assertHeader("ORDER_CREATED:o-1", "tenant", "t1");
        publisher.assertInOrderPerAggregate();
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM reservation WHERE order_no = 'o-1'", Long.class)).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM receipt WHERE order_no = 'o-1'", Long.class)).isEqualTo(1);
        assertThat(applicationClock).isSameAs(clock);
        assertThat(jdbc.queryForObject("SELECT created_at FROM shop_order WHERE order_no = 'o-1'", Timestamp.class)
                .toInstant()).isEqualTo(clock.instant());
        assertThat(jdbc.queryForObject("SELECT create_time FROM " + postbox.tables().outbox()
                + " WHERE event_no = 'ORDER_CREATED:o-1'", Timestamp.class).toInstant()).isEqualTo(clock.instant());
        assertThat(postbox.tables().outbox()).isEqualTo("biz_outbox_event");
    }

    @Test
    void aFailedEventWaitsForTheTestClockAndARolledBackOrderIsNeverPublished() {
        publisher.failWhen(e -> e.eventType().equals("ORDER_AUDIT"));
        orders.place("o-2", "pen");
        assertThatThrownBy(() -> orders.placeAndFail("o-3", "ink")).hasMessageContaining("payment refused");

        postboxAwait.awaitQuiescence();
        publisher.assertPublished("ORDER_CREATED:o-2");
        publisher.assertNotPublished("ORDER_AUDIT:o-2", "ORDER_CREATED:o-3", "ORDER_AUDIT:o-3");

        publisher.heal();
        postboxAwait.awaitQuiescence();
        publisher.assertNotPublished("ORDER_AUDIT:o-2"); // healed, but its retry time has not come by the test clock

        clock.advance(Duration.ofMinutes(1));
        postboxAwait.awaitQuiescence();
        publisher.assertPublishedTimes("ORDER_AUDIT:o-2", 1);
        InvariantChecker.of(postbox, dataSource).withDeliveries(publisher).assertNoRolledBackEventPublished();
        InvariantChecker.of(postbox, dataSource).assertEveryEventPublished();
    }

    @Test
    void aLostAcknowledgementRedeliversAndTheInventoryReservesOnce() {
        publisher.loseAckWhen(e -> e.eventNo().equals("ORDER_CREATED:o-4"));
        orders.place("o-4", "lamp");
        postboxAwait.awaitQuiescence();
        publisher.assertPublishedTimes("ORDER_CREATED:o-4", 1);

        publisher.heal();
        clock.advance(Duration.ofMinutes(1));
        postboxAwait.awaitQuiescence();

        publisher.assertPublishedTimes("ORDER_CREATED:o-4", 2);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM reservation WHERE order_no = 'o-4'", Long.class)).isEqualTo(1);
        InvariantChecker.of(postbox, dataSource).withDeliveries(publisher)
                .assertInboxEffectsOnce("inventory", e -> e.eventType().equals("ORDER_CREATED"));
    }
}
