package dev.postbox.spring.autoconfigure.tracing;

import dev.postbox.micrometer.MicrometerTracing;
import dev.postbox.opentelemetry.OpenTelemetryTracing;
import dev.postbox.tracing.PostboxTracing;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

/**
 * Traces Postbox with the application's tracer: its Micrometer Tracing {@code Tracer} and {@code Propagator} (Spring
 * Boot's tracing, behind Micrometer Observation, with the Brave or the OpenTelemetry bridge), else its
 * {@code OpenTelemetry} when postbox-opentelemetry is on the class path. The outbox write's {@code create} span is then
 * the child of the current request's span, the relay's {@code send} spans link to it and {@code @PostboxListener}
 * deliveries run in {@code process} spans parented to it. With neither, nothing is traced.
 * {@code postbox.tracing.enabled=false} turns it off; a {@link PostboxTracing} bean of the application's own replaces it.
 */
@AutoConfiguration(beforeName = "dev.postbox.spring.autoconfigure.PostboxAutoConfiguration")
@ConditionalOnProperty(name = "postbox.tracing.enabled", havingValue = "true", matchIfMissing = true)
class PostboxTracingAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public PostboxTracing postboxTracing(ListableBeanFactory beans) {
        ClassLoader loader = PostboxTracingAutoConfiguration.class.getClassLoader();
        if (ClassUtils.isPresent("io.micrometer.tracing.Tracer", loader)
                && ClassUtils.isPresent("dev.postbox.micrometer.MicrometerTracing", loader)) {
            PostboxTracing t = WithMicrometer.tracing(beans);
            if (t != null) {
                return t;
            }
        }
        if (ClassUtils.isPresent("io.opentelemetry.api.OpenTelemetry", loader)
                && ClassUtils.isPresent("dev.postbox.opentelemetry.OpenTelemetryTracing", loader)) {
            PostboxTracing t = WithOpenTelemetry.tracing(beans);
            if (t != null) {
                return t;
            }
        }
        return PostboxTracing.NOOP;
    }

    /** Loaded only when Micrometer Tracing is on the class path. */
    private static final class WithMicrometer {
        static PostboxTracing tracing(ListableBeanFactory beans) {
            Tracer tracer = beans.getBeanProvider(Tracer.class).getIfUnique();
            Propagator propagator = beans.getBeanProvider(Propagator.class).getIfUnique();
            return tracer == null || propagator == null || tracer == Tracer.NOOP ? null
                    : new MicrometerTracing(tracer, propagator);
        }
    }

    /** Loaded only when the OpenTelemetry API and postbox-opentelemetry are on the class path. */
    private static final class WithOpenTelemetry {
        static PostboxTracing tracing(ListableBeanFactory beans) {
            OpenTelemetry otel = beans.getBeanProvider(OpenTelemetry.class).getIfUnique();
            return otel == null ? null : new OpenTelemetryTracing(otel);
        }
    }
}
