package dev.postbox.spring.autoconfigure.transport;

import dev.postbox.nats.NatsPublisher;
import dev.postbox.nats.NatsSubscriber;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.spi.Envelope;
import dev.postbox.spring.PublisherRoute;
import dev.postbox.testing.TestDatabase;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.stream.IntStream;

import static dev.postbox.spring.autoconfigure.transport.TransportTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

/** Against the local NATS JetStream (nats://127.0.0.1:4222), with a unique stream and subject prefix per test, deleted after it. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NatsTransportAutoConfigurationTest {

    static final String URL = System.getProperty("postbox.test.nats.url", "nats://127.0.0.1:4222");

    private TestDatabase db;
    private Connection connection;
    private JetStreamManagement jsm;
    private String stream;
    private String prefix;

    @BeforeAll
    void start() throws Exception {
        db = TestDatabase.postgres(null);
        connection = Nats.connect(URL);
        jsm = connection.jetStreamManagement();
    }

    @AfterAll
    void stop() throws Exception {
        try {
            connection.close();
        } finally {
            db.close();
        }
    }

    @BeforeEach
    void createStream() throws Exception {
        String id = unique("sb").replace('-', '_');
        stream = "POSTBOX_" + id.toUpperCase();
        prefix = id + ".";
        jsm.addStream(StreamConfiguration.builder().name(stream).subjects(prefix + ">").storageType(StorageType.Memory)
                .duplicateWindow(Duration.ofMinutes(1)).build());
    }

    @AfterEach
    void deleteStream() throws Exception {
        jsm.deleteStream(stream);
    }

    private ApplicationContextRunner runner() {
        return TransportTestSupport.runner(db.dataSource(), NatsTransportAutoConfiguration.class);
    }

    @Test
    void eventsOfChannelNatsWrittenInATransactionArriveInTheirStreamAndArePublished() {
        runner().withPropertyValues("postbox.nats.url=" + URL, "postbox.nats.subject-prefix=" + prefix).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(NatsPublisher.class);
            assertThat(routes(context)).containsEntry("nats", List.of("NATS"));
            assertThat(context.getBean(NatsPublisher.class).connection().getOptions().getConnectionName())
                    .isEqualTo(NatsPublisher.DEFAULT_CONNECTION_NAME);

            String run = unique("n");
            List<OutboxEvent> events = IntStream.range(0, 3)
                    .mapToObj(i -> event("NATS", "order.created", null, run + ":" + i, run + "-agg", i)).toList();
            writeInTransaction(context, events);
            awaitPublished(db.dataSource(), events.stream().map(OutboxEvent::eventNo).toList());

            Queue<Envelope> received = queue();
            try (NatsSubscriber subscriber = NatsSubscriber.builder(connection, collecting(context, "inventory-" + run, received))
                    .stream(stream).filterSubject(prefix + "order.>").build()) {
                await("3 messages from " + stream + ", got ", () -> {
                    subscriber.pollOnce();
                    return received.size() >= 3;
                }, received::toString);
            }
            assertThat(received).extracting(Envelope::eventNo).containsExactly(run + ":0", run + ":1", run + ":2");
            assertThat(received).extracting(Envelope::payload)
                    .containsExactlyElementsOf(events.stream().map(OutboxEvent::payload).toList());
            assertThat(jsm.getStreamInfo(stream).getStreamState().getMsgCount()).isEqualTo(3);
        });
    }

    @Test
    void severalUrlsAndChannelsAreAccepted() {
        runner().withPropertyValues("postbox.nats.url=" + URL + "," + URL.replace("127.0.0.1", "localhost"),
                "postbox.nats.channels=NATS,JETSTREAM", "postbox.nats.connection-name=orders-relay").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(routes(context)).containsEntry("nats", List.of("NATS", "JETSTREAM"));
            NatsPublisher publisher = context.getBean(NatsPublisher.class);
            assertThat(publisher.connection().getOptions().getServers()).hasSize(2);
            assertThat(publisher.connection().getOptions().getConnectionName()).isEqualTo("orders-relay");
        });
    }

    @Test
    void theConnectionIsClosedWithTheContext() {
        NatsPublisher[] publisher = new NatsPublisher[1];
        runner().withPropertyValues("postbox.nats.url=" + URL).run(context -> {
            publisher[0] = context.getBean(NatsPublisher.class);
            await("connected", () -> publisher[0].connection().getStatus() == Connection.Status.CONNECTED, () -> "");
        });
        assertThat(publisher[0].connection().getStatus()).isEqualTo(Connection.Status.CLOSED);
    }

    @Test
    void badSettingsFailStartUpNamingTheProperty() {
        runner().withPropertyValues("postbox.nats.url=" + URL, "postbox.nats.subject-prefix=orders.*.").run(context ->
                assertThat(context.getStartupFailure()).rootCause().hasMessageStartingWith("postbox.nats.subject-prefix: "));
        runner().withPropertyValues("postbox.nats.url=" + URL, "postbox.nats.ack-timeout=0s").run(context ->
                assertThat(context.getStartupFailure()).rootCause().hasMessageStartingWith("postbox.nats.ack-timeout: must be positive"));
        runner().withPropertyValues("postbox.nats.url=http://[bad", "postbox.nats.channels=NATS").run(context ->
                assertThat(context.getStartupFailure()).rootCause().hasMessageStartingWith("postbox.nats.url[0]: "));
        runner().withPropertyValues("postbox.nats.url=" + URL, "postbox.nats.channels=").run(context ->
                assertThat(context.getStartupFailure()).rootCause()
                        .hasMessage("postbox.nats.channels: must name at least one channel"));
    }

    @Test
    void aNatsPublisherOfTheApplicationReplacesTheStartersAndIsRouted() {
        NatsPublisher own = NatsPublisher.builder().connection(connection).build();
        runner().withPropertyValues("postbox.nats.url=" + URL)
                .withBean("ownNats", NatsPublisher.class, () -> own).run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(NatsPublisher.class).doesNotHaveBean("postboxNatsPublisher");
                    assertThat(context.getBean("postboxNatsRoute", PublisherRoute.class).publisher()).isSameAs(own);
                });
        assertThat(connection.getStatus()).as("a given connection is left open").isEqualTo(Connection.Status.CONNECTED);
    }
}
