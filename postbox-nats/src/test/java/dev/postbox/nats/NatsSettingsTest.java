package dev.postbox.nats;

import dev.postbox.common.PostboxException;
import dev.postbox.common.ValidationException;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad settings fail at build() with the setting named; a missing stream fails loudly. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NatsSettingsTest {

    private JetStreamFixture nats;
    private TestDatabase db;
    private EnvelopeConsumer consumer;

    @BeforeAll
    void connect() throws Exception {
        nats = new JetStreamFixture();
        db = TestDatabase.postgres(null);
        dev.postbox.Postbox postbox = dev.postbox.Postbox.builder(db.dataSource()).build();
        consumer = new EnvelopeConsumer(db.dataSource(), postbox.inbox(), "settings", (c, e) -> { });
    }

    @AfterAll
    void close() throws Exception {
        try {
            nats.close();
        } finally {
            db.close();
        }
    }

    private static void publisherFails(Consumer<NatsPublisher.Builder> settings, String field, String message) {
        NatsPublisher.Builder b = NatsPublisher.builder();
        settings.accept(b);
        assertThatThrownBy(b::build).isInstanceOf(ValidationException.class)
                .hasMessageContaining(message).extracting(e -> ((ValidationException) e).field()).isEqualTo(field);
    }

    private void subscriberFails(Consumer<NatsSubscriber.Builder> settings, String field, String message) {
        NatsSubscriber.Builder b = NatsSubscriber.builder(nats.connection, consumer).stream(nats.stream);
        settings.accept(b);
        assertThatThrownBy(b::build).isInstanceOf(ValidationException.class)
                .hasMessageContaining(message).extracting(e -> ((ValidationException) e).field()).isEqualTo(field);
    }

    @Test
    void publisherSettingsAreValidatedByName() {
        publisherFails(b -> { }, "servers", "exactly one");
        publisherFails(b -> b.servers(JetStreamFixture.URL).connection(nats.connection), "servers", "exactly one");
        publisherFails(b -> b.servers("nats://127.0.0.1:4222", " "), "servers[1]", "blank");
        publisherFails(b -> b.servers("nats://bad host:4222"), "servers[0]", "not a NATS URL");
        publisherFails(b -> b.connection(nats.connection).subjectPrefix(null), "subjectPrefix", "null");
        publisherFails(b -> b.connection(nats.connection).subjectPrefix("orders.*."), "subjectPrefix", "wildcard");
        publisherFails(b -> b.connection(nats.connection).subjectPrefix("my orders."), "subjectPrefix", "whitespace");
        publisherFails(b -> b.connection(nats.connection).ackTimeout(Duration.ZERO), "ackTimeout", "positive");
        publisherFails(b -> b.connection(nats.connection).reconnectWait(Duration.ofSeconds(-1)), "reconnectWait", "zero or more");
        publisherFails(b -> b.servers(JetStreamFixture.URL).connectionName(" "), "connectionName", "blank");
    }

    @Test
    void subscriberSettingsAreValidatedByName() {
        subscriberFails(b -> b.stream(null), "stream", "required");
        subscriberFails(b -> b.durable("orders.inventory"), "durable", "not a JetStream consumer name");
        subscriberFails(b -> b.batchSize(0), "batchSize", "1..10000");
        subscriberFails(b -> b.maxWait(Duration.ZERO), "maxWait", "at least 1 ms");
        subscriberFails(b -> b.nakDelay(Duration.ofMillis(-1)), "nakDelay", "zero or more");
        subscriberFails(b -> b.ackWait(Duration.ZERO), "ackWait", "positive");
        subscriberFails(b -> b.maxAckPending(0), "maxAckPending", "positive or -1");
    }

    @Test
    void aSubscriberOnAMissingStreamFailsNamingIt() {
        assertThatThrownBy(() -> NatsSubscriber.builder(nats.connection, consumer).stream("NO_SUCH_" + nats.stream).build())
                .isInstanceOf(PostboxException.class).hasMessageContaining("NO_SUCH_" + nats.stream)
                .hasMessageContaining("stream not found");
    }
}
