package dev.postbox.spring.autoconfigure.transport;

import dev.postbox.Postbox;
import dev.postbox.common.ValidationException;
import dev.postbox.http.HttpPublisher;
import dev.postbox.spring.PublisherRoute;
import dev.postbox.spring.autoconfigure.PostboxAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Map;

/**
 * An {@link HttpPublisher} for the relay (one signed {@code POST} per event), routed the events of
 * {@code postbox.http.channels} (default {@code HTTP}), when {@code postbox-http} is on the class path
 * <em>and</em> at least one {@code postbox.http.endpoints.<name>} is set; without one nothing is set up.
 * An {@code HttpPublisher} bean of the application's own (a client with TLS or a proxy) replaces it.
 * <p>
 * The receiving side needs no configuration of the starter: a {@code WebhookReceiver} built from an
 * {@code EnvelopeConsumer(dataSource, postbox.inbox(), ...)} and {@code WebhookVerifier.of(secret)}.
 */
@AutoConfiguration(after = PostboxAutoConfiguration.class)
@ConditionalOnClass(HttpPublisher.class)
@ConditionalOnBean(Postbox.class)
@ConditionalOnProperty(prefix = "postbox.http", name = "enabled", havingValue = "true", matchIfMissing = true)
@Conditional(HttpTransportAutoConfiguration.EndpointConfigured.class)
@EnableConfigurationProperties(HttpTransportProperties.class)
class HttpTransportAutoConfiguration {

    /** Name of the relay route (and of the transport in errors and logs). */
    static final String ROUTE = "http";

    @Bean
    @ConditionalOnMissingBean
    HttpPublisher postboxHttpPublisher(HttpTransportProperties p) {
        return TransportSupport.build("postbox.http", "http.", Map.of("endpoint", "endpoints", "route", "routes"), () -> {
            HttpPublisher.Builder b = HttpPublisher.builder()
                    .maxInFlight(p.getMaxInFlight())
                    .requestTimeout(p.getRequestTimeout())
                    .connectTimeout(p.getConnectTimeout());
            p.getEndpoints().forEach((name, url) -> b.endpoint(name, uri(name, url)));
            p.getRoutes().forEach(b::route);
            if (p.getSecret() != null) {
                b.secret(p.getSecret());
            }
            return b.build();
        });
    }

    @Bean
    PublisherRoute postboxHttpRoute(HttpPublisher publisher, HttpTransportProperties p) {
        return new PublisherRoute(ROUTE, TransportSupport.channels("postbox.http.channels", p.getChannels()), publisher);
    }

    private static URI uri(String name, String url) {
        try {
            return new URI(url == null ? "" : url.trim());
        } catch (URISyntaxException e) {
            throw new ValidationException("http.endpoint." + name, "is not a URL: " + e.getMessage());
        }
    }

    static final class EndpointConfigured extends TransportSupport.ConnectionConfigured {
        @Override
        List<String> properties() {
            return List.of("postbox.http.endpoints");
        }

        @Override
        boolean isSet(Binder binder, String property) {
            return !binder.bind(property, Bindable.mapOf(String.class, String.class)).orElse(Map.of()).isEmpty();
        }
    }
}
