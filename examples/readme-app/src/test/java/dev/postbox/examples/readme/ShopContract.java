package dev.postbox.examples.readme;

import dev.postbox.spring.PostboxListenerObserver;
import dev.postbox.test.RecordingPublisher;
import dev.postbox.test.TestClock;
import dev.postbox.test.spring.PostboxAwait;
import dev.postbox.test.spring.PostboxTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static dev.postbox.test.spring.PostboxTest.PublishTo.TRANSPORTS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's application, tested as its README section shows: {@code @PostboxTest} with every event published to
 * its real broker (in-process Kafka, the local RabbitMQ and NATS JetStream, and the in-process event bus), and
 * waits for the consumers without a single sleep. Each database binds it in a subclass.
 */
@PostboxTest(classes = {ShopApplication.class, ShopContract.Deliveries.class}, publishTo = TRANSPORTS)
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
abstract class ShopContract {

    /** The brokers' names and the Kafka broker live until the whole run ends, after every context closed. */
    @RegisterExtension
    static final BeforeAllCallback BROKERS_CLEANED_UP_AT_END = context -> context.getRoot()
            .getStore(ExtensionContext.Namespace.create(Brokers.class))
            .getOrComputeIfAbsent("brokers", k -> (ExtensionContext.Store.CloseableResource) Brokers::cleanUp);

    /**
     * The consumers a second copy of an event reaches: NATS JetStream drops the second publish itself (Postbox sends
     * {@code Nats-Msg-Id = event_no}; the stream acknowledges it as a duplicate), so the mailer never sees it.
     */
    static final List<String> REDELIVERED_TO = List.of("inventory", "billing", "shipping");

    /** Every delivery to the shop's listeners, as the starter tells them (a PostboxListenerObserver). */
    @TestConfiguration(proxyBeanMethods = false)
    static class Deliveries {
        final LinkedBlockingQueue<PostboxListenerObserver.Delivery> seen = new LinkedBlockingQueue<>();

        @Bean
        PostboxListenerObserver shopDeliveries() {
            return seen::add;
        }
    }

    @Autowired
    Deliveries deliveries;

    @BeforeEach
    void freshStock() {
        jdbc.sql("DELETE FROM stock").update();
        jdbc.sql("INSERT INTO stock (sku, reserved) VALUES ('BOOK', 0), ('PEN', 0)").update();
        publisher.heal();
    }

    // region test
    @Autowired OrderService orders;
    @Autowired JdbcClient jdbc;
    @Autowired RecordingPublisher publisher;   // every event the relay sent, with failure injection
    @Autowired PostboxAwait postbox;           // waits for the relay and the consumers, never sleeps
    @Autowired TestClock clock;                // the time of the relay's retries

    @Test
    void anOrderReachesEveryConsumerOnce() {
        String orderNo = orders.place("BOOK", 2);

        postbox.awaitConsumed("inventory", "ORDER_CREATED:" + orderNo + ":EVENT_BUS");
        postbox.awaitConsumed("billing", "ORDER_CREATED:" + orderNo + ":KAFKA");
        postbox.awaitConsumed("shipping", "ORDER_CREATED:" + orderNo + ":RABBITMQ");
        postbox.awaitConsumed("mailer", "ORDER_CREATED:" + orderNo + ":NATS");

        assertThat(jdbc.sql("SELECT reserved FROM stock WHERE sku = 'BOOK'").query(Integer.class).single()).isEqualTo(2);
        assertThat(jdbc.sql("SELECT consumer FROM handled WHERE order_no = ? ORDER BY consumer").param(orderNo)
                .query(String.class).list()).containsExactly("billing", "mailer", "shipping");
        publisher.assertInOrderPerAggregate();
    }

    @Test
    void lostAcknowledgementsArePublishedAgainAndConsumedOnce() {
        publisher.loseAckWhen(event -> event.payload().contains("\"PEN\"")     // the broker has it, the relay thinks not
                && publisher.copies(event.eventNo()) == 0);
        String orderNo = orders.place("PEN", 1);
        for (String channel : OrderService.CHANNELS) {  // one order, one aggregate: its events leave one after another
            postbox.awaitQuiescence();                   // the next one sent, its acknowledgement lost
            clock.advance(Duration.ofMinutes(1));        // its retry is due
        }
        postbox.awaitQuiescence();
        for (String channel : OrderService.CHANNELS) {
            publisher.assertPublishedTimes("ORDER_CREATED:" + orderNo + ":" + channel, 2);
        }
        publisher.assertInOrderPerAggregate();
        // region-skip
        awaitDuplicates(orderNo);
        // endregion-skip

        assertThat(jdbc.sql("SELECT reserved FROM stock WHERE sku = 'PEN'").query(Integer.class).single()).isEqualTo(1);
        assertThat(jdbc.sql("SELECT COUNT(*) FROM handled WHERE order_no = ?").param(orderNo)
                .query(Long.class).single()).isEqualTo(3);                      // billing, shipping, mailer: once each
    }
    // endregion test

    /**
     * Waits, on the deliveries the starter reports, until each consumer of {@link #REDELIVERED_TO} saw the order's
     * event twice: once RAN and once DUPLICATE (the second copy absorbed by its consume log); the mailer once, RAN.
     * Without this the test could look before the brokers delivered the second copies.
     */
    private void awaitDuplicates(String orderNo) {
        java.util.Set<String> waiting = new java.util.TreeSet<>(REDELIVERED_TO);
        waiting.add("mailer");
        java.util.Map<String, List<PostboxListenerObserver.Outcome>> outcomes = new java.util.TreeMap<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        try {
            while (!waiting.isEmpty()) {
                PostboxListenerObserver.Delivery d = deliveries.seen.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                assertThat(d).as("deliveries of " + orderNo + " so far: " + outcomes + "; waiting for a duplicate at "
                        + waiting).isNotNull();
                if (!d.envelope().eventNo().contains(orderNo)) {
                    continue;
                }
                outcomes.computeIfAbsent(d.consumer(), k -> new java.util.ArrayList<>()).add(d.outcome());
                if (d.outcome() == PostboxListenerObserver.Outcome.DUPLICATE || !REDELIVERED_TO.contains(d.consumer())) {
                    waiting.remove(d.consumer());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        outcomes.forEach((consumer, list) -> assertThat(list).as(consumer).containsExactlyElementsOf(
                REDELIVERED_TO.contains(consumer) ? List.of(PostboxListenerObserver.Outcome.RAN,
                        PostboxListenerObserver.Outcome.DUPLICATE) : List.of(PostboxListenerObserver.Outcome.RAN)));
        assertThat(outcomes).containsOnlyKeys("inventory", "billing", "shipping", "mailer");
    }
}
