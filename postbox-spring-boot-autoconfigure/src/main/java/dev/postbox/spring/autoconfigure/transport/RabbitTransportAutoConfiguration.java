package dev.postbox.spring.autoconfigure.transport;

import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.Postbox;
import dev.postbox.common.ValidationException;
import dev.postbox.rabbitmq.RabbitPublisher;
import dev.postbox.spring.PublisherRoute;
import dev.postbox.spring.autoconfigure.PostboxAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A {@link RabbitPublisher} for the relay (publisher confirms; topic = exchange, routing key = routing
 * key), routed the events of {@code postbox.rabbitmq.channels} (default {@code RABBITMQ}), when
 * {@code postbox-rabbitmq} is on the class path <em>and</em> a broker is configured:
 * {@code postbox.rabbitmq.host}, else {@code spring.rabbitmq.host} (see {@link RabbitTransportProperties}
 * for how the other connection settings follow). Without either nothing is set up, so the jar alone never
 * makes the application look for a broker.
 * <p>
 * Also a {@link ConnectionFactory} bean ({@code postboxRabbitConnectionFactory}) with those settings, for
 * the application's {@code RabbitConsumer}s; the publisher uses a copy of it without automatic recovery.
 * Declare a {@code ConnectionFactory} bean of your own (TLS, several addresses, credentials providers) to
 * have the publisher use it, or a {@code RabbitPublisher} bean to replace the publisher. The publisher is
 * closed when the context closes, after the relay has stopped.
 * <pre>{@code
 * @Bean(destroyMethod = "close")
 * RabbitConsumer inventoryConsumer(ConnectionFactory factory, DataSource dataSource, Postbox postbox) {
 *     EnvelopeConsumer inventory = new EnvelopeConsumer(dataSource, postbox.inbox(), "inventory",
 *             (c, e) -> reserveStock(c, e.aggregateId()));
 *     return RabbitConsumer.builder(factory, "inventory.orders", inventory).start();
 * }
 * }</pre>
 */
@AutoConfiguration(after = PostboxAutoConfiguration.class)
@ConditionalOnClass(RabbitPublisher.class)
@ConditionalOnBean(Postbox.class)
@ConditionalOnProperty(prefix = "postbox.rabbitmq", name = "enabled", havingValue = "true", matchIfMissing = true)
@Conditional(RabbitTransportAutoConfiguration.HostConfigured.class)
@EnableConfigurationProperties(RabbitTransportProperties.class)
class RabbitTransportAutoConfiguration {

    /** Name of the relay route (and of the transport in errors and logs). */
    static final String ROUTE = "rabbitmq";

    @Bean
    @ConditionalOnMissingBean
    ConnectionFactory postboxRabbitConnectionFactory(RabbitTransportProperties p, Environment env) {
        boolean own = p.getHost() != null && !p.getHost().isBlank();
        String prefix = own ? "postbox.rabbitmq" : "spring.rabbitmq";
        Binder binder = Binder.get(env);
        String host = own ? p.getHost() : TransportSupport.string(env, "spring.rabbitmq.host").orElseThrow();
        Integer port = own ? p.getPort() : binder.bind("spring.rabbitmq.port", Integer.class).orElse(null);
        String username = own ? p.getUsername() : TransportSupport.string(env, "spring.rabbitmq.username").orElse(null);
        String password = own ? p.getPassword() : binder.bind("spring.rabbitmq.password", String.class).orElse(null);
        String virtualHost = own ? p.getVirtualHost()
                : TransportSupport.string(env, "spring.rabbitmq.virtual-host").orElse(null);

        ConnectionFactory f = new ConnectionFactory();
        f.setHost(host.trim());
        if (port != null) {
            if (port < 1 || port > 65535) {
                throw new ValidationException(prefix + ".port", "must be between 1 and 65535, was " + port);
            }
            f.setPort(port);
        }
        if (username != null) {
            f.setUsername(username);
        }
        if (password != null) {
            f.setPassword(password);
        }
        if (virtualHost != null) {
            f.setVirtualHost(virtualHost);
        }
        Duration timeout = p.getConnectionTimeout();
        if (timeout == null || timeout.isNegative() || timeout.isZero() || timeout.toMillis() > Integer.MAX_VALUE) {
            throw new ValidationException("postbox.rabbitmq.connection-timeout", "must be positive, was " + timeout);
        }
        f.setConnectionTimeout((int) timeout.toMillis());
        return f;
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    RabbitPublisher postboxRabbitPublisher(ConnectionFactory factory, RabbitTransportProperties p) {
        return TransportSupport.build("postbox.rabbitmq", "rabbitmq.", Map.of(), () -> RabbitPublisher.builder(factory)
                .defaultExchange(p.getDefaultExchange())
                .confirmTimeout(p.getConfirmTimeout())
                .reconnectInterval(p.getReconnectInterval())
                .connectionName(p.getConnectionName())
                .build());
    }

    @Bean
    PublisherRoute postboxRabbitRoute(RabbitPublisher publisher, RabbitTransportProperties p) {
        return new PublisherRoute(ROUTE, TransportSupport.channels("postbox.rabbitmq.channels", p.getChannels()), publisher);
    }

    static final class HostConfigured extends TransportSupport.ConnectionConfigured {
        @Override
        List<String> properties() {
            return List.of("postbox.rabbitmq.host", "spring.rabbitmq.host");
        }
    }
}
