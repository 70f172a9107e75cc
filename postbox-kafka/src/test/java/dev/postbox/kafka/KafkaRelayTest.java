package dev.postbox.kafka;

import dev.postbox.common.RetryPolicy;
import dev.postbox.kafka.testing.KafkaCluster;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.Relay;
import dev.postbox.relay.Routes;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real relay publishing through {@link KafkaPublisher} to an in-process broker, consumed by
 * {@link KafkaEnvelopeConsumer}s into a table via the inbox: order per aggregate and no loss, also
 * across a broker outage. The outage test runs last since it takes the broker down: this class has a cluster of
 * its own, not the test JVM's shared one.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaRelayTest extends KafkaTestBase {

    @Override
    protected KafkaCluster cluster() {
        return KafkaCluster.start();
    }

    private long outboxStatus(OutboxStatus status) {
        return countQuietly("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status = " + status.code());
    }

    private long received(String consumer) {
        return countQuietly("SELECT COUNT(*) FROM received WHERE consumer = '" + consumer + "'");
    }

    @Test
    @Order(1)
    @SuppressWarnings("try") // the relay and the loops run on their own threads until closed
    void manyEventsOfAHundredAggregatesArriveOnceInAggregateOrder() throws Exception {
        int n = dev.postbox.testing.TestScale.events(10_000);
        String topic = kafka.createTopic("orders", 6);
        writeEvents("ord", 0, n, 100, topic);
        try (KafkaEnvelopeConsumer c1 = consume(recording("orders"), topic).start();
             KafkaEnvelopeConsumer c2 = consume(recording("orders"), topic).start();
             KafkaPublisher publisher = publisher().build();
             Relay relay = postbox.relay(Routes.of("KAFKA", publisher)).instanceId("r-order").batchSize(500).start()) {
            await(Duration.ofSeconds(120), n + " events at the consumer", () -> received("orders") >= n);
            await(Duration.ofSeconds(10), "the relay to record every event",
                    () -> outboxStatus(OutboxStatus.PUBLISHED) >= n);
        }
        assertThat(orderProblems("orders", n)).isEmpty();
        assertThat(outboxStatus(OutboxStatus.DEAD)).isZero();
        kafka.deleteTopic(topic);
    }

    @Test
    @Order(2)
    @SuppressWarnings("try") // the relay and the loops run on their own threads until closed
    void aBrokerDownForTwentySecondsLosesNothingAndKeepsTheOrder() throws Exception {
        String topic = kafka.createTopic("outage", 4);
        writeEvents("out", 0, 1_000, 20, topic);
        AtomicLong failedSeen = new AtomicLong();
        try (KafkaEnvelopeConsumer consumer = consume(recording("outage"), topic).start();
             KafkaPublisher publisher = publisher().deliveryTimeout(Duration.ofSeconds(3))
                     .requestTimeout(Duration.ofSeconds(2)).maxBlock(Duration.ofSeconds(1)).build();
             Relay relay = postbox.relay(Routes.of("KAFKA", publisher)).instanceId("r-outage").batchSize(500)
                     .retryPolicy(RetryPolicy.exponential(Duration.ofMillis(200), Duration.ofSeconds(1))).start()) {
            await(Duration.ofSeconds(60), "the first 1,000 events", () -> received("outage") >= 1_000);

            kafka.stopBroker();
            long downSince = System.nanoTime();
            try {
                int next = 1_000;
                while (System.nanoTime() - downSince < Duration.ofSeconds(20).toNanos()) {
                    if (next < 3_000) {
                        writeEvents("out", next, next + 100, 20, topic); // the relay keeps claiming and failing
                        next += 100;
                    }
                    failedSeen.accumulateAndGet(outboxStatus(OutboxStatus.FAILED), Math::max);
                    Thread.sleep(500);
                }
                assertThat(next).isEqualTo(3_000);
                assertThat(received("outage")).as("nothing gets through while the broker is down").isEqualTo(1_000);
            } finally {
                kafka.startBroker();
            }
            await(Duration.ofSeconds(90), "all 3,000 events after the broker came back", () -> received("outage") >= 3_000);
            await(Duration.ofSeconds(10), "the relay to record every event",
                    () -> outboxStatus(OutboxStatus.PUBLISHED) >= 3_000);
            assertThat(consumer.isRunning()).isTrue();
        }
        assertThat(failedSeen.get()).as("sends failed (retryably) during the outage").isPositive();
        assertThat(orderProblems("outage", 3_000)).isEmpty();
        assertThat(outboxStatus(OutboxStatus.DEAD)).isZero();
        kafka.deleteTopic(topic);
    }
}
