package dev.postbox.spring.autoconfigure.tracing;

import dev.postbox.opentelemetry.OpenTelemetryTracing;
import dev.postbox.tracing.PostboxTracing;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Traces Postbox with the application's {@link OpenTelemetry} (Spring Boot's OpenTelemetry support defines it, e.g.
 * {@code spring-boot-starter-opentelemetry}, or the OpenTelemetry Spring Boot starter) when postbox-opentelemetry is
 * on the class path: the outbox write's {@code create} span is then the child of the current request's span,
 * the relay's {@code send} spans link to it and {@code @PostboxListener} deliveries run in {@code process} spans
 * parented to it. Without an {@code OpenTelemetry} bean, nothing is traced. {@code postbox.tracing.enabled=false}
 * turns it off; a {@link PostboxTracing} bean of the application's own replaces it.
 */
@AutoConfiguration(beforeName = "dev.postbox.spring.autoconfigure.PostboxAutoConfiguration")
@ConditionalOnClass({OpenTelemetryTracing.class, OpenTelemetry.class})
@ConditionalOnProperty(name = "postbox.tracing.enabled", havingValue = "true", matchIfMissing = true)
public class PostboxTracingAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public PostboxTracing postboxTracing(ObjectProvider<OpenTelemetry> openTelemetry) {
        OpenTelemetry otel = openTelemetry.getIfUnique();
        return otel == null ? PostboxTracing.NOOP : new OpenTelemetryTracing(otel);
    }
}
