package dev.postbox.spring.autoconfigure.transport;

import dev.postbox.kafka.testing.KafkaCluster;
import dev.postbox.kafka.KafkaEnvelopeConsumer;
import dev.postbox.kafka.KafkaPublisher;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.spi.Envelope;
import dev.postbox.spring.PublisherRoute;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.stream.IntStream;

import static dev.postbox.spring.autoconfigure.transport.TransportTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaTransportAutoConfigurationTest {

    private KafkaCluster kafka;
    private TestDatabase db;

    @BeforeAll
    void start() throws Exception {
        kafka = KafkaCluster.shared(); // the test JVM's: every topic here gets a unique name, every group a run of its own
        db = TestDatabase.postgres(null);
    }

    @AfterAll
    void stop() throws Exception {
        db.close();
    }

    private ApplicationContextRunner runner() {
        return TransportTestSupport.runner(db.dataSource(), KafkaTransportAutoConfiguration.class);
    }

    @Test
    void eventsOfChannelKafkaWrittenInATransactionArriveAtTheirTopicAndArePublished() throws Exception {
        String topic = kafka.createTopic("orders", 2);
        runner().withPropertyValues("postbox.kafka.bootstrap-servers=" + kafka.bootstrapServers()).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(KafkaPublisher.class);
            assertThat(routes(context)).containsEntry("kafka", List.of("KAFKA"));
            roundTrip(context, topic, "KAFKA");
        });
    }

    @Test
    void fallsBackToSpringKafkaBootstrapServersAndRoutesTheConfiguredChannels() throws Exception {
        String topic = kafka.createTopic("fallback", 2);
        runner().withPropertyValues("spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                "postbox.kafka.channels=MQ,STREAM").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(KafkaPublisher.class).producerConfig())
                    .containsEntry("bootstrap.servers", kafka.bootstrapServers());
            assertThat(routes(context)).containsEntry("kafka", List.of("MQ", "STREAM"));
            roundTrip(context, topic, "STREAM");
        });
    }

    @Test
    void producerPropertiesReachTheProducerAndForcedOnesFailStartUpNamingTheProperty() {
        runner().withPropertyValues("postbox.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                "postbox.kafka.producer[compression.type]=lz4", "postbox.kafka.client-id=orders-relay").run(context ->
                assertThat(context.getBean(KafkaPublisher.class).producerConfig())
                        .containsEntry("compression.type", "lz4").containsEntry("client.id", "orders-relay"));
        runner().withPropertyValues("postbox.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                "postbox.kafka.producer.acks=0").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageStartingWith("postbox.kafka.producer.acks: ");
        });
        runner().withPropertyValues("postbox.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                "postbox.kafka.request-timeout=9s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                    .hasMessageStartingWith("postbox.kafka.delivery-timeout: must be at least linger + requestTimeout");
        });
    }

    @Test
    void noChannelsFailsStartUpNamingTheProperty() {
        runner().withPropertyValues("postbox.kafka.bootstrap-servers=" + kafka.bootstrapServers(), "postbox.kafka.channels=")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                            .hasMessage("postbox.kafka.channels: must name at least one channel");
                });
    }

    @Test
    void aKafkaPublisherOfTheApplicationReplacesTheStartersAndIsRouted() {
        KafkaPublisher own = KafkaPublisher.builder().bootstrapServers(kafka.bootstrapServers()).clientId("own").build();
        try {
            runner().withPropertyValues("postbox.kafka.bootstrap-servers=" + kafka.bootstrapServers())
                    .withBean("ownKafka", KafkaPublisher.class, () -> own, d -> d.setDestroyMethodName("")).run(context -> {
                        assertThat(context).hasNotFailed().hasSingleBean(KafkaPublisher.class)
                                .doesNotHaveBean("postboxKafkaPublisher");
                        assertThat(context.getBean("postboxKafkaRoute", PublisherRoute.class).publisher()).isSameAs(own);
                    });
        } finally {
            own.close();
        }
    }

    private void roundTrip(ApplicationContext context, String topic, String channel) throws Exception {
        String run = unique("k");
        List<OutboxEvent> events = IntStream.range(0, 3)
                .mapToObj(i -> event(channel, topic, null, run + ":" + i, run + "-agg", i)).toList();
        writeInTransaction(context, events);

        Queue<Envelope> received = queue();
        try (KafkaEnvelopeConsumer loop = KafkaEnvelopeConsumer.builder(collecting(context, "inventory-" + run, received))
                .bootstrapServers(kafka.bootstrapServers()).groupId("inventory-" + run).topics(topic).start()) {
            await("3 records on " + topic + ", got ", () -> received.size() >= 3, received::toString);
        }
        assertThat(received).extracting(Envelope::eventNo).containsExactly(run + ":0", run + ":1", run + ":2");
        assertThat(received).extracting(Envelope::payload).containsExactlyElementsOf(
                events.stream().map(OutboxEvent::payload).toList());
        assertThat(received).extracting(Envelope::aggregateId).containsOnly(run + "-agg");
        awaitPublished(db.dataSource(), events.stream().map(OutboxEvent::eventNo).toList());
        assertThat(statuses(db.dataSource(), events.stream().map(OutboxEvent::eventNo).toList()))
                .isEqualTo(Map.of(run + ":0", 2, run + ":1", 2, run + ":2", 2));
    }
}
