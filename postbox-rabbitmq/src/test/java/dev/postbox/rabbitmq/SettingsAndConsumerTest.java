package dev.postbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import dev.postbox.common.ValidationException;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.outbox.OutboxRecord;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** (f) Bad settings name the setting; the consumer rejects non-envelopes and requeues on failure. */
class SettingsAndConsumerTest extends RabbitTestSupport {

    private EnvelopeConsumer noop() {
        return new EnvelopeConsumer(ds, postbox.inbox(), "noop", (c, e) -> { });
    }

    @Test
    void badPublisherSettingsAreRefusedNamingTheSetting() {
        assertThatThrownBy(() -> RabbitPublisher.builder((com.rabbitmq.client.ConnectionFactory) null))
                .isInstanceOf(ValidationException.class).hasMessageContaining("rabbitmq.connectionFactory");
        assertThatThrownBy(() -> RabbitPublisher.builder(" ")).isInstanceOf(ValidationException.class)
                .hasMessageContaining("rabbitmq.uri");
        assertThatThrownBy(() -> RabbitPublisher.builder("http://127.0.0.1:5672")).isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("rabbitmq.uri: is not an amqp:// or amqps:// URI");
        assertThatThrownBy(() -> RabbitPublisher.builder(factory()).confirmTimeout(Duration.ZERO).build())
                .isInstanceOf(ValidationException.class).hasMessage("rabbitmq.confirmTimeout: must be positive (was PT0S)");
        assertThatThrownBy(() -> RabbitPublisher.builder(factory()).confirmTimeout(null).build())
                .isInstanceOf(ValidationException.class).hasMessageContaining("rabbitmq.confirmTimeout");
        assertThatThrownBy(() -> RabbitPublisher.builder(factory()).reconnectInterval(Duration.ofSeconds(-1)).build())
                .isInstanceOf(ValidationException.class).hasMessageContaining("rabbitmq.reconnectInterval");
        assertThatThrownBy(() -> RabbitPublisher.builder(factory()).defaultExchange("x".repeat(256)).build())
                .isInstanceOf(ValidationException.class).hasMessageContaining("rabbitmq.defaultExchange");
        assertThatThrownBy(() -> RabbitPublisher.builder(factory()).connectionName("").build())
                .isInstanceOf(ValidationException.class).hasMessageContaining("rabbitmq.connectionName");
        RabbitPublisher.builder("amqp://guest:guest@127.0.0.1:5672/").build().close();
    }

    @Test
    void badConsumerSettingsAreRefusedNamingTheSetting() throws Exception {
        assertThatThrownBy(() -> RabbitConsumer.builder(null, "q", noop()).start())
                .isInstanceOf(ValidationException.class).hasMessageContaining("rabbitmq.connectionFactory");
        assertThatThrownBy(() -> RabbitConsumer.builder(factory(), " ", noop()).start())
                .isInstanceOf(ValidationException.class).hasMessageContaining("rabbitmq.queue");
        assertThatThrownBy(() -> RabbitConsumer.builder(factory(), "q", null).start())
                .isInstanceOf(ValidationException.class).hasMessageContaining("rabbitmq.consumer");
        assertThatThrownBy(() -> RabbitConsumer.builder(factory(), "q", noop()).prefetch(0).start())
                .isInstanceOf(ValidationException.class).hasMessage("rabbitmq.prefetch: must be 1..65535 (was 0)");
        assertThatThrownBy(() -> RabbitConsumer.builder(factory(), "q", noop()).requeueDelay(Duration.ofMillis(-1)).start())
                .isInstanceOf(ValidationException.class).hasMessageContaining("rabbitmq.requeueDelay");
        String missing = prefix + "-no-such-queue";
        assertThatThrownBy(() -> RabbitConsumer.builder(factory(), missing, noop()).start())
                .isInstanceOf(IOException.class).rootCause().hasMessageContaining("NOT_FOUND - no queue '" + missing + "'");
    }

    @Test
    void aDeliveryThatIsNotAnEnvelopeIsRejectedToTheDeadLetterExchangeWithoutRunningTheWork() throws Exception {
        String dlx = topicExchange("dlx");
        String dlq = queue("dlq", dlx, "#", null);
        String queue = queue("with-dlx", null, null, Map.of("x-dead-letter-exchange", dlx));
        AtomicInteger runs = new AtomicInteger();
        EnvelopeConsumer counting = new EnvelopeConsumer(ds, postbox.inbox(), "strict", (c, e) -> runs.incrementAndGet());
        try (RabbitConsumer consumer = RabbitConsumer.builder(factory(), queue, counting).start()) {
            admin.basicPublish("", queue, new AMQP.BasicProperties.Builder().messageId("foreign-1").type("X")
                    .headers(Map.of("postbox-event-version", "1", "postbox-aggregate-type", "ORDER")).build(),
                    "{}".getBytes(StandardCharsets.UTF_8));
            await("the rejection", Duration.ofSeconds(10), () -> consumer.rejected() == 1);
            assertThat(consumer.acknowledged()).isZero();
        }
        assertThat(runs).hasValue(0);
        assertThat(messageCount(queue)).as("not redelivered").isZero();
        GetResponse dead = admin.basicGet(dlq, true);
        assertThat(dead).as("dead-lettered").isNotNull();
        assertThat(dead.getProps().getMessageId()).isEqualTo("foreign-1");
    }

    @Test
    void aFailingHandlerIsRequeuedAndRunsOnceItSucceeds() throws Exception {
        String exchange = topicExchange("flaky");
        String queue = queue("flaky", exchange, "#", null);
        write(List.of(event("F-1", "A1", 1, exchange, "order.changed").build()));
        OutboxRecord r = record("F-1");
        AtomicInteger attempts = new AtomicInteger();
        EnvelopeConsumer flaky = new EnvelopeConsumer(ds, postbox.inbox(), "flaky", (c, e) -> {
            if (attempts.incrementAndGet() <= 2) {
                throw new IllegalStateException("downstream busy");
            }
        });
        try (RabbitPublisher publisher = RabbitPublisher.builder(factory()).build();
             RabbitConsumer consumer = RabbitConsumer.builder(factory(), queue, flaky).requeueDelay(Duration.ofMillis(50)).start()) {
            publisher.publish(List.of(r)).get(0).toCompletableFuture().get(10, TimeUnit.SECONDS);
            await("the third attempt acknowledged", Duration.ofSeconds(10), () -> consumer.acknowledged() == 1);
            assertThat(consumer.requeued()).isEqualTo(2);
        }
        assertThat(attempts).hasValue(3);
        assertThat(count("SELECT COUNT(*) FROM " + postbox.tables().consumeLog() + " WHERE event_no = 'F-1'")).isEqualTo(1);
        assertThat(messageCount(queue)).isZero();
    }
}
