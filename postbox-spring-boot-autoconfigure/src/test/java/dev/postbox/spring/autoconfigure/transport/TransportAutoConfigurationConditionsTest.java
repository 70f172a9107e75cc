package dev.postbox.spring.autoconfigure.transport;

import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.http.HttpPublisher;
import dev.postbox.kafka.KafkaPublisher;
import dev.postbox.nats.NatsPublisher;
import dev.postbox.rabbitmq.RabbitPublisher;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.List;

import static dev.postbox.spring.autoconfigure.transport.TransportTestSupport.routes;
import static org.assertj.core.api.Assertions.assertThat;

/** All four transport jars on the class path, on H2: what each connection property turns on, and what clashes. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransportAutoConfigurationConditionsTest {

    private TestDatabase db;

    @BeforeAll
    void start() {
        db = TestDatabase.h2();
    }

    @AfterAll
    void stop() {
        db.close();
    }

    private ApplicationContextRunner runner() {
        return TransportTestSupport.runner(db.dataSource(), KafkaTransportAutoConfiguration.class,
                RabbitTransportAutoConfiguration.class, NatsTransportAutoConfiguration.class,
                HttpTransportAutoConfiguration.class);
    }

    @Test
    void theFourAreRegisteredAsAutoConfigurations() {
        assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).getCandidates())
                .contains(KafkaTransportAutoConfiguration.class.getName(), RabbitTransportAutoConfiguration.class.getName(),
                        NatsTransportAutoConfiguration.class.getName(), HttpTransportAutoConfiguration.class.getName());
    }

    @Test
    void withoutAConnectionPropertyNoTransportIsSetUp() {
        runner().withPropertyValues("postbox.kafka.bootstrap-servers=", "postbox.nats.url= ").run(context -> {
            assertThat(context).hasNotFailed()
                    .doesNotHaveBean(KafkaPublisher.class).doesNotHaveBean(RabbitPublisher.class)
                    .doesNotHaveBean(ConnectionFactory.class).doesNotHaveBean(NatsPublisher.class)
                    .doesNotHaveBean(HttpPublisher.class)
                    .doesNotHaveBean(KafkaTransportProperties.class).doesNotHaveBean(HttpTransportProperties.class);
            assertThat(routes(context)).containsOnlyKeys("event-bus");
        });
    }

    @Test
    void eachConnectionPropertyTurnsOnItsTransportOnly() {
        runner().withPropertyValues("spring.kafka.bootstrap-servers[0]=127.0.0.1:9").run(context ->
                assertThat(routes(context)).containsOnlyKeys("event-bus", "kafka"));
        runner().withPropertyValues("spring.rabbitmq.host=127.0.0.1").run(context ->
                assertThat(routes(context)).containsOnlyKeys("event-bus", "rabbitmq"));
        runner().withPropertyValues("postbox.rabbitmq.host=127.0.0.1").run(context ->
                assertThat(routes(context)).containsOnlyKeys("event-bus", "rabbitmq"));
        runner().withPropertyValues("postbox.http.endpoints.HTTP=http://127.0.0.1:9/x").run(context ->
                assertThat(routes(context)).containsOnlyKeys("event-bus", "http"));
    }

    @Test
    void enabledFalseOrNoPostboxTurnsATransportOff() {
        runner().withPropertyValues("postbox.kafka.bootstrap-servers=127.0.0.1:9", "postbox.kafka.enabled=false",
                "postbox.http.endpoints.HTTP=http://127.0.0.1:9/x").run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(KafkaPublisher.class).hasSingleBean(HttpPublisher.class);
            assertThat(routes(context)).containsOnlyKeys("event-bus", "http");
        });
        runner().withPropertyValues("postbox.enabled=false", "postbox.kafka.bootstrap-servers=127.0.0.1:9",
                "postbox.http.endpoints.HTTP=http://127.0.0.1:9/x").run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(KafkaPublisher.class).doesNotHaveBean(HttpPublisher.class));
    }

    @Test
    void twoTransportsClaimingOneChannelFailStartUpNamingBoth() {
        runner().withPropertyValues("spring.rabbitmq.host=127.0.0.1", "postbox.rabbitmq.channels=ORDERS",
                "postbox.http.endpoints.billing=http://127.0.0.1:9/x", "postbox.http.channels=ORDERS,WEBHOOK").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageStartingWith("postbox.relay: ")
                    .hasMessageContaining("channel 'ORDERS' is routed to both")
                    .hasMessageContaining("rabbitmq").hasMessageContaining("http");
        });
        runner().withPropertyValues("postbox.kafka.bootstrap-servers=127.0.0.1:9", "postbox.kafka.channels=EVENT_BUS")
                .run(context -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining("channel 'EVENT_BUS' is routed to both event-bus and kafka"));
    }

    @Test
    void channelsAreRoutedAsConfigured() {
        runner().withPropertyValues("postbox.kafka.bootstrap-servers=127.0.0.1:9", "spring.rabbitmq.host=127.0.0.1",
                "postbox.http.endpoints.HTTP=http://127.0.0.1:9/x", "postbox.kafka.channels[0]=STREAM",
                "postbox.kafka.channels[1]=AUDIT").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(routes(context)).containsEntry("kafka", List.of("STREAM", "AUDIT"))
                    .containsEntry("rabbitmq", List.of("RABBITMQ")).containsEntry("http", List.of("HTTP"));
        });
    }
}
