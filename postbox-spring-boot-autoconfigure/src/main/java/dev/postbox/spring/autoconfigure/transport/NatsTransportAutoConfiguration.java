package dev.postbox.spring.autoconfigure.transport;

import dev.postbox.Postbox;
import dev.postbox.nats.NatsPublisher;
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

import java.util.List;
import java.util.Map;

/**
 * A {@link NatsPublisher} for the relay (JetStream, {@code Nats-Msg-Id = event_no}), routed the events of
 * {@code postbox.nats.channels} (default {@code NATS}), when {@code postbox-nats} is on the class path
 * <em>and</em> {@code postbox.nats.url} is set; without it nothing is set up, so the jar alone never makes
 * the application look for a server. The publisher opens its own connection when the context starts (a
 * server that is down is not an error: it keeps reconnecting) and closes it when the context closes, after
 * the relay has stopped. A {@code NatsPublisher} bean of the application's own replaces it.
 * <p>
 * A {@code NatsSubscriber} takes a {@code io.nats.client.Connection} of the application's (or
 * {@code publisher.connection()}), a {@code DataSource} and {@code postbox.inbox()}.
 */
@AutoConfiguration(after = PostboxAutoConfiguration.class)
@ConditionalOnClass(NatsPublisher.class)
@ConditionalOnBean(Postbox.class)
@ConditionalOnProperty(prefix = "postbox.nats", name = "enabled", havingValue = "true", matchIfMissing = true)
@Conditional(NatsTransportAutoConfiguration.UrlConfigured.class)
@EnableConfigurationProperties(NatsTransportProperties.class)
class NatsTransportAutoConfiguration {

    /** Name of the relay route (and of the transport in errors and logs). */
    static final String ROUTE = "nats";

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    NatsPublisher postboxNatsPublisher(NatsTransportProperties p) {
        String[] servers = p.getUrl().stream().map(String::trim).filter(s -> !s.isEmpty()).toArray(String[]::new);
        return TransportSupport.build("postbox.nats", "", Map.of("servers", "url"), () -> NatsPublisher.builder()
                .servers(servers)
                .subjectPrefix(p.getSubjectPrefix() == null ? "" : p.getSubjectPrefix())
                .ackTimeout(p.getAckTimeout())
                .reconnectWait(p.getReconnectWait())
                .connectionName(p.getConnectionName())
                .build());
    }

    @Bean
    PublisherRoute postboxNatsRoute(NatsPublisher publisher, NatsTransportProperties p) {
        return new PublisherRoute(ROUTE, TransportSupport.channels("postbox.nats.channels", p.getChannels()), publisher);
    }

    static final class UrlConfigured extends TransportSupport.ConnectionConfigured {
        @Override
        List<String> properties() {
            return List.of("postbox.nats.url");
        }
    }
}
