package dev.postbox.checks;

import dev.postbox.Postbox;
import dev.postbox.cli.PostboxCli;
import dev.postbox.console.ConsoleApi;
import dev.postbox.http.HttpPublisher;
import dev.postbox.kafka.KafkaPublisherBuilder;
import dev.postbox.nats.NatsPublisher;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.rabbitmq.RabbitPublisher;
import dev.postbox.spring.TransactionalOutbox;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The published modules are compiled with {@code -parameters} (the root POM): their public methods' parameter names
 * are in the class files, for reflection (Spring's binding, the console's handlers) and for IDEs without sources.
 */
class ParameterNamesTest {

    /** One public class of each published module that has code (the starter has none). */
    private static final List<Class<?>> ONE_PER_MODULE = List.of(
            Postbox.Builder.class,                 // postbox-core
            KafkaPublisherBuilder.class,           // postbox-kafka
            RabbitPublisher.Builder.class,         // postbox-rabbitmq
            NatsPublisher.Builder.class,           // postbox-nats
            HttpPublisher.Builder.class,           // postbox-http
            ConsoleApi.Builder.class,              // postbox-console
            PostboxCli.class,                      // postbox-cli
            TransactionalOutbox.class);            // postbox-spring-boot-autoconfigure

    @Test
    void aPublicMethodOfCoreKeepsItsParameterName() throws NoSuchMethodException {
        Parameter p = OutboxEvent.Builder.class.getMethod("eventNo", String.class).getParameters()[0];

        assertThat(p.isNamePresent()).isTrue();
        assertThat(p.getName()).isEqualTo("eventNo");
    }

    @Test
    void everyPublicMethodOfEachPublishedModuleKeepsItsParameterNames() {
        for (Class<?> type : ONE_PER_MODULE) {
            List<Parameter> parameters = Arrays.stream(type.getDeclaredMethods())
                    .filter(m -> Modifier.isPublic(m.getModifiers()) && !m.isSynthetic())
                    .map(Method::getParameters)
                    .flatMap(Arrays::stream)
                    .toList();

            assertThat(parameters).as("parameters of public methods of %s", type.getName()).isNotEmpty()
                    .allSatisfy(p -> assertThat(p.isNamePresent())
                            .as("%s: name of %s present", type.getName(), p).isTrue());
        }
    }
}
