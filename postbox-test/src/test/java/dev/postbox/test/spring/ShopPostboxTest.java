package dev.postbox.test.spring;

import dev.postbox.Postbox;
import dev.postbox.test.InvariantChecker;
import dev.postbox.test.RecordingPublisher;
import dev.postbox.test.TestClock;
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

    /** The context, its database and the deliveries are shared by the tests; the injections are each test's own. */
    @BeforeEach
    void noInjections() {
        publisher.heal();
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
