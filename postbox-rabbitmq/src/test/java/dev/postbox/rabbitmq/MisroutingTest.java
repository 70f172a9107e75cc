package dev.postbox.rabbitmq;

import com.rabbitmq.client.GetResponse;
import dev.postbox.common.RetryPolicy;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.Relay;
import dev.postbox.spi.PublishResult;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** (e) Unroutable and unknown targets go DEAD with the reason; a lost broker is retryable. */
class MisroutingTest extends RabbitTestSupport {

    private static PublishResult outcome(RabbitPublisher publisher, OutboxRecord r) throws Exception {
        return publisher.publish(List.of(r)).get(0).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private void drainUntilSettled(Relay relay, int events) throws Exception {
        await("all events settled", Duration.ofSeconds(20), () -> {
            relay.runOnce();
            return count("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status IN ("
                    + OutboxStatus.PUBLISHED.code() + ", " + OutboxStatus.DEAD.code() + ")") == events;
        });
    }

    @Test
    void aMessageNoQueueIsBoundForIsDeadAsUnroutableAndOthersFlow() throws Exception {
        String exchange = topicExchange("unroutable");
        String queue = queue("unroutable", exchange, "order.*", null);
        write(List.of(event("U-1", "A1", 1, exchange, "nobody.listens").build(),
                event("U-2", "A2", 1, exchange, "order.changed").build()));
        try (RabbitPublisher publisher = RabbitPublisher.builder(factory()).build();
             Relay relay = postbox.relay(publisher).instanceId("r1").build()) {
            drainUntilSettled(relay, 2);
        }
        OutboxRecord dead = record("U-1");
        assertThat(dead.status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(dead.retryCount()).as("never retried").isEqualTo(1);
        assertThat(dead.failReason()).isEqualTo("unroutable: exchange '" + exchange + "' routing key 'nobody.listens' (NO_ROUTE)");
        assertThat(record("U-2").status()).isEqualTo(OutboxStatus.PUBLISHED);
        assertThat(messageCount(queue)).isEqualTo(1);
    }

    @Test
    void aMissingExchangeIsDeadAndTheNextPublishUsesANewChannel() throws Exception {
        String exchange = topicExchange("exists");
        String queue = queue("exists", exchange, "#", null);
        String missing = prefix + "-missing";
        write(List.of(event("M-1", "A1", 1, exchange, "order.changed").build(),
                event("M-2", "A2", 1, missing, "order.changed").build(),
                event("M-3", "A3", 1, exchange, "order.changed").build()));
        try (RabbitPublisher publisher = RabbitPublisher.builder(factory()).build();
             Relay relay = postbox.relay(publisher).instanceId("r1")
                     .retryPolicy(RetryPolicy.exponential(Duration.ofMillis(50), Duration.ofMillis(100))).build()) {
            drainUntilSettled(relay, 3);

            assertThat(outcome(publisher, record("M-2"))).as("the channel 404 closed was replaced")
                    .isEqualTo(PublishResult.dead("no such exchange '" + missing + "' (NOT_FOUND - no exchange '"
                            + missing + "' in vhost '/')"));
            assertThat(outcome(publisher, record("M-1"))).isEqualTo(PublishResult.published());
        }
        OutboxRecord dead = record("M-2");
        assertThat(dead.status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(dead.failReason()).startsWith("no such exchange '" + missing + "'").contains("NOT_FOUND");
        assertThat(record("M-1").status()).as("the others of the batch were retried if caught by the close")
                .isEqualTo(OutboxStatus.PUBLISHED);
        assertThat(record("M-3").status()).isEqualTo(OutboxStatus.PUBLISHED);
        assertThat(messageCount(queue)).as("M-1, M-3 (maybe redelivered) and M-1 again").isGreaterThanOrEqualTo(3);
    }

    @Test
    void anEventWithoutTopicUsesTheDefaultExchangeOrIsDeadWithoutOne() throws Exception {
        String queue = queue("direct", null, null, null);
        write(List.of(OutboxEvent.builder().eventNo("D-1").aggregate("ORDER", "1").eventType("X").channel("MQ")
                .routingKey(queue).payload("{}").build()));
        try (RabbitPublisher none = RabbitPublisher.builder(factory()).build();
             RabbitPublisher amqpDefault = RabbitPublisher.builder(factory()).defaultExchange("").build()) {
            assertThat(outcome(none, record("D-1")))
                    .isEqualTo(PublishResult.dead("no exchange: the event has no topic and the publisher no default exchange"));
            assertThat(outcome(amqpDefault, record("D-1"))).isEqualTo(PublishResult.published());
        }
        GetResponse got = admin.basicGet(queue, true);
        assertThat(got.getProps().getMessageId()).isEqualTo("D-1");
    }

    @Test
    void anUnreachableBrokerIsRetryableAndNamesTheAddress() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        var f = factory();
        f.setPort(closedPort);
        write(List.of(event("N-1", "A1", 1, "x", "y").build()));
        try (RabbitPublisher publisher = RabbitPublisher.builder(f).reconnectInterval(Duration.ofMinutes(1)).build()) {
            PublishResult first = outcome(publisher, record("N-1"));
            assertThat(first.kind()).isEqualTo(PublishResult.Kind.RETRY);
            assertThat(first.reason()).startsWith("broker unavailable: cannot connect to 127.0.0.1:" + closedPort);
            long t0 = System.nanoTime();
            assertThat(outcome(publisher, record("N-1")).reason()).as("within the reconnect interval: fails fast")
                    .isEqualTo(first.reason());
            assertThat(System.nanoTime() - t0).isLessThan(Duration.ofMillis(200).toNanos());
        }
    }
}
