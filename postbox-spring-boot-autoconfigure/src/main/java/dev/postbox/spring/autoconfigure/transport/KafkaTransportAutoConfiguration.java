package dev.postbox.spring.autoconfigure.transport;

import dev.postbox.Postbox;
import dev.postbox.kafka.KafkaPublisher;
import dev.postbox.kafka.KafkaPublisherBuilder;
import dev.postbox.spring.PublisherRoute;
import dev.postbox.spring.autoconfigure.PostboxAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;

import java.util.List;
import java.util.Map;

/**
 * A {@link KafkaPublisher} for the relay, routed the events of {@code postbox.kafka.channels} (default
 * {@code KAFKA}), when {@code postbox-kafka} is on the class path <em>and</em> a cluster is configured:
 * {@code postbox.kafka.bootstrap-servers}, else {@code spring.kafka.bootstrap-servers}. Without either
 * nothing is set up, so the jar alone never makes the application look for a broker. Only the bootstrap
 * servers fall back to {@code spring.kafka.*}; security settings go in {@code postbox.kafka.producer.*}.
 * <p>
 * A {@code KafkaPublisher} bean of the application's own replaces the starter's and is routed in its
 * place. The publisher is closed when the context closes, after the relay has stopped.
 * <p>
 * Consuming needs no more than the beans already there:
 * <pre>{@code
 * @Bean(destroyMethod = "close")
 * KafkaEnvelopeConsumer inventoryLoop(DataSource dataSource, Postbox postbox,
 *                                     @Value("${postbox.kafka.bootstrap-servers:${spring.kafka.bootstrap-servers}}") String servers) {
 *     EnvelopeConsumer inventory = new EnvelopeConsumer(dataSource, postbox.inbox(), "inventory",
 *             (c, e) -> reserveStock(c, e.aggregateId()));
 *     return KafkaEnvelopeConsumer.builder(inventory).bootstrapServers(servers)
 *             .groupId("inventory").topics("order.event").start();
 * }
 * }</pre>
 */
@AutoConfiguration(after = PostboxAutoConfiguration.class)
@ConditionalOnClass(KafkaPublisher.class)
@ConditionalOnBean(Postbox.class)
@ConditionalOnProperty(prefix = "postbox.kafka", name = "enabled", havingValue = "true", matchIfMissing = true)
@Conditional(KafkaTransportAutoConfiguration.BootstrapServersConfigured.class)
@EnableConfigurationProperties(KafkaTransportProperties.class)
class KafkaTransportAutoConfiguration {

    /** Name of the relay route (and of the transport in errors and logs). */
    static final String ROUTE = "kafka";

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    KafkaPublisher postboxKafkaPublisher(KafkaTransportProperties p, Environment env) {
        List<String> servers = p.getBootstrapServers() != null && !p.getBootstrapServers().isEmpty()
                ? p.getBootstrapServers() : TransportSupport.list(env, "spring.kafka.bootstrap-servers");
        return TransportSupport.build("postbox.kafka", "kafka.", Map.of("property", "producer"), () -> {
            KafkaPublisherBuilder b = KafkaPublisher.builder()
                    .bootstrapServers(String.join(",", servers))
                    .clientId(p.getClientId())
                    .deliveryTimeout(p.getDeliveryTimeout())
                    .requestTimeout(p.getRequestTimeout())
                    .maxBlock(p.getMaxBlock())
                    .linger(p.getLinger());
            p.getProducer().forEach(b::property);
            return b.build();
        });
    }

    @Bean
    PublisherRoute postboxKafkaRoute(KafkaPublisher publisher, KafkaTransportProperties p) {
        return new PublisherRoute(ROUTE, TransportSupport.channels("postbox.kafka.channels", p.getChannels()), publisher);
    }

    static final class BootstrapServersConfigured extends TransportSupport.ConnectionConfigured {
        @Override
        List<String> properties() {
            return List.of("postbox.kafka.bootstrap-servers", "spring.kafka.bootstrap-servers");
        }
    }
}
