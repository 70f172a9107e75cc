package dev.postbox.rabbitmq;

import dev.postbox.testing.TcpProxy;
import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.common.RetryPolicy;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.Relay;
import dev.postbox.spi.PublishResult;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** A real relay through the publisher and the broker into the consumer helper and the inbox: (b), (c), (d). */
class RelayThroughRabbitTest extends RabbitTestSupport {

    private long received() {
        return count("SELECT COUNT(*) FROM received");
    }

    private long status(OutboxStatus s) {
        return count("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status = " + s.code());
    }

    @Test
    void manyEventsOfAHundredAggregatesArriveOnceEachInAggregateOrder() throws Exception {
        int n = dev.postbox.testing.TestScale.events(10_000);
        String exchange = topicExchange("order");
        String queue = queue("order", exchange, "order.*", null);
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            events.add(event("E-" + i, "A" + (i % 100), i, exchange, "order.changed").build());
            if (events.size() == 1_000) {
                write(events);
                events.clear();
            }
        }
        try (RabbitConsumer consumer = RabbitConsumer.builder(factory(), queue, recording("inventory")).start();
             RabbitPublisher publisher = RabbitPublisher.builder(factory()).build();
             Relay relay = postbox.relay(publisher).instanceId("r1").batchSize(500).start()) {
            await(n + " events consumed", Duration.ofSeconds(90), () -> received() == n);
            await("all recorded as published", Duration.ofSeconds(10), () -> status(OutboxStatus.PUBLISHED) == n);
            assertThat(consumer.requeued()).isZero();
            assertThat(consumer.rejected()).isZero();
        }
        assertThat(count("SELECT COUNT(DISTINCT event_no) FROM received")).isEqualTo(n);
        assertThat(orderViolations()).isEmpty();
        assertThat(count("SELECT COUNT(*) FROM " + postbox.tables().consumeLog() + " WHERE consumer = 'inventory'"))
                .isEqualTo(n);
        assertThat(messageCount(queue)).isZero();
    }

    @Test
    void anEventPublishedTwiceIsDeliveredTwiceAndItsWorkRunsOnce() throws Exception {
        String exchange = topicExchange("twice");
        String queue = queue("twice", exchange, "#", null);
        write(List.of(event("TWICE-1", "A1", 1, exchange, "order.changed").build()));
        OutboxRecord r = record("TWICE-1");
        AtomicInteger runs = new AtomicInteger();
        EnvelopeConsumer counting = new EnvelopeConsumer(ds, postbox.inbox(), "billing", (c, e) -> runs.incrementAndGet());
        try (RabbitPublisher publisher = RabbitPublisher.builder(factory()).build();
             RabbitConsumer consumer = RabbitConsumer.builder(factory(), queue, counting).start()) {
            for (int i = 0; i < 2; i++) {
                assertThat(publisher.publish(List.of(r)).get(0).toCompletableFuture().get(10, TimeUnit.SECONDS))
                        .as("RabbitMQ queues do not deduplicate: both publishes are accepted").isEqualTo(PublishResult.published());
            }
            await("both deliveries acknowledged", Duration.ofSeconds(10), () -> consumer.acknowledged() == 2);
            assertThat(consumer.requeued()).isZero();
        }
        assertThat(runs).as("the inbox absorbed the second delivery").hasValue(1);
        assertThat(count("SELECT COUNT(*) FROM " + postbox.tables().consumeLog() + " WHERE event_no = 'TWICE-1'")).isEqualTo(1);
        assertThat(messageCount(queue)).as("nothing left or requeued").isZero();
    }

    @Test
    void brokerUnreachableFor20SecondsWhileTheRelayRunsLosesNothingAndKeepsTheOrder() throws Exception {
        String exchange = topicExchange("outage");
        String queue = queue("outage", exchange, "#", null);
        try (TcpProxy proxy = new TcpProxy(HOST, PORT)) {
            ConnectionFactory viaProxy = factory();
            viaProxy.setPort(proxy.port());
            AtomicInteger written = new AtomicInteger();
            try (RabbitConsumer consumer = RabbitConsumer.builder(factory(), queue, recording("shipping")).start();
                 RabbitPublisher publisher = RabbitPublisher.builder(viaProxy).reconnectInterval(Duration.ofMillis(200))
                         .confirmTimeout(Duration.ofSeconds(3)).build();
                 Relay relay = postbox.relay(publisher).instanceId("r1").batchSize(500)
                         .retryPolicy(RetryPolicy.exponential(Duration.ofMillis(200), Duration.ofSeconds(2)))
                         .sendTimeout(Duration.ofSeconds(5)).start()) {
                // a service writing 20 events (one per aggregate) every 100 ms for 24 s, outage from 2 s to 22 s
                long start = System.nanoTime();
                boolean cut = false;
                boolean sawRetriesDuringOutage = false;
                for (int tick = 0; System.nanoTime() - start < Duration.ofSeconds(24).toNanos(); tick++) {
                    List<OutboxEvent> events = new ArrayList<>();
                    for (int a = 0; a < 20; a++) {
                        int n = written.getAndIncrement();
                        events.add(event("OUT-" + n, "A" + a, tick, exchange, "order.changed").maxRetries(100).build());
                    }
                    write(events);
                    if (!cut && System.nanoTime() - start > Duration.ofSeconds(2).toNanos()) {
                        assertThat(received()).as("flowing before the outage").isPositive();
                        proxy.cut(Duration.ofSeconds(20));
                        cut = true;
                    }
                    if (cut && proxy.refusing() && status(OutboxStatus.FAILED) > 0) {
                        sawRetriesDuringOutage = true;
                    }
                    Thread.sleep(100);
                }
                assertThat(proxy.refusing()).isFalse();
                assertThat(sawRetriesDuringOutage).as("events waited for their retry during the outage").isTrue();
                int total = written.get();
                await(total + " events consumed", Duration.ofSeconds(60), () -> received() == total);
                await("all recorded as published", Duration.ofSeconds(10), () -> status(OutboxStatus.PUBLISHED) == total);
            }
        }
        assertThat(status(OutboxStatus.DEAD)).isZero();
        assertThat(count("SELECT COUNT(DISTINCT event_no) FROM received")).isEqualTo(written());
        assertThat(orderViolations()).isEmpty();
        assertThat(count("SELECT MAX(retry_count) FROM " + postbox.tables().outbox())).as("the relay retried").isGreaterThan(1);
    }

    private long written() {
        return count("SELECT COUNT(*) FROM " + postbox.tables().outbox());
    }
}
