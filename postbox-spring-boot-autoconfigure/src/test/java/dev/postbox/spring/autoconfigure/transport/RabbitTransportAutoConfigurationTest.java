package dev.postbox.spring.autoconfigure.transport;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.rabbitmq.RabbitConsumer;
import dev.postbox.rabbitmq.RabbitPublisher;
import dev.postbox.spi.Envelope;
import dev.postbox.spring.PublisherRoute;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Queue;
import java.util.stream.IntStream;

import static dev.postbox.spring.autoconfigure.transport.TransportTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

/** Against the local RabbitMQ (127.0.0.1:5672, guest/guest), with a unique exchange and queue per test, deleted after it. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RabbitTransportAutoConfigurationTest {

    static final String HOST = System.getProperty("postbox.test.rabbitmq.host", "127.0.0.1");
    static final int PORT = Integer.getInteger("postbox.test.rabbitmq.port", 5672);

    private TestDatabase db;
    private Connection admin;
    private Channel channel;
    private String exchange;
    private String queue;

    @BeforeAll
    void start() throws Exception {
        db = TestDatabase.postgres(null);
        ConnectionFactory f = new ConnectionFactory();
        f.setHost(HOST);
        f.setPort(PORT);
        f.setConnectionTimeout(5_000);
        admin = f.newConnection("postbox-sb-test-admin");
    }

    @AfterAll
    void stop() throws Exception {
        try {
            admin.close();
        } finally {
            db.close();
        }
    }

    @BeforeEach
    void declare() throws Exception {
        channel = admin.createChannel();
        exchange = unique("postbox-sb-orders");
        queue = unique("postbox-sb-inventory");
        channel.exchangeDeclare(exchange, "topic", false, false, null);
        channel.queueDeclare(queue, false, false, false, null);
        channel.queueBind(queue, exchange, "order.*");
    }

    @AfterEach
    void delete() throws Exception {
        channel.queueDelete(queue);
        channel.exchangeDelete(exchange);
        channel.close();
    }

    private ApplicationContextRunner runner() {
        return TransportTestSupport.runner(db.dataSource(), RabbitTransportAutoConfiguration.class);
    }

    @Test
    void eventsOfChannelRabbitmqWrittenInATransactionArriveThroughTheirExchangeAndArePublished() {
        runner().withPropertyValues("postbox.rabbitmq.host=" + HOST, "postbox.rabbitmq.port=" + PORT,
                "postbox.rabbitmq.username=guest", "postbox.rabbitmq.password=guest").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(RabbitPublisher.class);
            assertThat(routes(context)).containsEntry("rabbitmq", List.of("RABBITMQ"));

            String run = unique("r");
            List<OutboxEvent> events = IntStream.range(0, 3)
                    .mapToObj(i -> event("RABBITMQ", exchange, "order.created", run + ":" + i, run + "-agg", i)).toList();
            writeInTransaction(context, events);

            // the consumer side from the context's beans: its ConnectionFactory, DataSource and Postbox
            Queue<Envelope> received = queue();
            try (RabbitConsumer consumer = RabbitConsumer.builder(context.getBean(ConnectionFactory.class), queue,
                    collecting(context, "inventory-" + run, received)).start()) {
                await("3 deliveries from " + queue + ", got ", () -> received.size() >= 3, received::toString);
            }
            assertThat(received).extracting(Envelope::eventNo).containsExactly(run + ":0", run + ":1", run + ":2");
            assertThat(received).extracting(Envelope::payload)
                    .containsExactlyElementsOf(events.stream().map(OutboxEvent::payload).toList());
            awaitPublished(db.dataSource(), events.stream().map(OutboxEvent::eventNo).toList());
        });
    }

    @Test
    void fallsBackToSpringRabbitmqConnectionSettingsAndTheDefaultExchange() {
        runner().withPropertyValues("spring.rabbitmq.host=" + HOST, "spring.rabbitmq.port=" + PORT,
                "spring.rabbitmq.username=guest", "spring.rabbitmq.password=guest", "spring.rabbitmq.virtual-host=/",
                "postbox.rabbitmq.default-exchange=" + exchange, "postbox.rabbitmq.channels=MQ").run(context -> {
            assertThat(context).hasNotFailed();
            ConnectionFactory factory = context.getBean(ConnectionFactory.class);
            assertThat(factory.getHost()).isEqualTo(HOST);
            assertThat(factory.getPort()).isEqualTo(PORT);
            assertThat(factory.getConnectionTimeout()).isEqualTo(5_000);
            assertThat(routes(context)).containsEntry("rabbitmq", List.of("MQ"));

            String eventNo = unique("r") + ":no-topic";
            writeInTransaction(context, List.of(event("MQ", null, "order.paid", eventNo, "a-1", 7)));
            awaitPublished(db.dataSource(), List.of(eventNo));
            GetResponse got = channel.basicGet(queue, true);
            assertThat(got).as("message in " + queue).isNotNull();
            assertThat(got.getProps().getMessageId()).isEqualTo(eventNo);
            assertThat(got.getProps().getHeaders().get(Envelope.EVENT_NO)).hasToString(eventNo);
            assertThat(new String(got.getBody(), StandardCharsets.UTF_8)).contains("\"seq\":7").contains("grüße");
        });
    }

    @Test
    void badSettingsFailStartUpNamingTheProperty() {
        runner().withPropertyValues("postbox.rabbitmq.host=" + HOST, "postbox.rabbitmq.confirm-timeout=0s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                    .hasMessageStartingWith("postbox.rabbitmq.confirm-timeout: must be positive");
        });
        runner().withPropertyValues("postbox.rabbitmq.host=" + HOST, "postbox.rabbitmq.port=70000").run(context ->
                assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageStartingWith("postbox.rabbitmq.port: must be between 1 and 65535"));
        runner().withPropertyValues("spring.rabbitmq.host=" + HOST, "postbox.rabbitmq.channels=").run(context ->
                assertThat(context.getStartupFailure()).rootCause()
                        .hasMessage("postbox.rabbitmq.channels: must name at least one channel"));
    }

    @Test
    void aRabbitPublisherOfTheApplicationReplacesTheStartersAndIsRouted() {
        ConnectionFactory f = new ConnectionFactory();
        f.setHost(HOST);
        RabbitPublisher own = RabbitPublisher.builder(f).connectionName("own").build();
        runner().withPropertyValues("postbox.rabbitmq.host=" + HOST)
                .withBean("ownRabbit", RabbitPublisher.class, () -> own).run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(RabbitPublisher.class)
                            .doesNotHaveBean("postboxRabbitPublisher");
                    assertThat(context.getBean("postboxRabbitRoute", PublisherRoute.class).publisher()).isSameAs(own);
                });
    }
}
