package dev.postbox.spring.autoconfigure.tracing;

import dev.postbox.micrometer.MicrometerTracing;
import dev.postbox.micrometer.ObservationTracing;
import dev.postbox.micrometer.PostboxSendTracingHandler;
import dev.postbox.opentelemetry.OpenTelemetryTracing;
import dev.postbox.tracing.PostboxTracing;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.util.ClassUtils;

/**
 * Traces Postbox with the application's tracer. With Spring Boot's tracing (Micrometer Tracing, on the Brave or the
 * OpenTelemetry bridge): through Micrometer Observation ({@link ObservationTracing} on the application's
 * {@code ObservationRegistry}: observations {@code postbox.create}, {@code postbox.send}, {@code postbox.process}, made
 * spans and timers by Boot's handlers, turned off with {@code management.observations.enable.postbox=false}), with
 * {@link PostboxSendTracingHandler} declared as a tracing handler ordered ahead of Boot's sender handler so that send
 * spans link to their events' creation contexts; on the {@code Tracer} itself ({@link MicrometerTracing}) when there is
 * no registry. Else with the application's {@code OpenTelemetry} when postbox-opentelemetry is on the class path. The
 * outbox write's {@code create} span is then the child of the current request's span, the relay's {@code send} spans
 * link to it and {@code @PostboxListener} deliveries run in {@code process} spans parented to it. With none of these,
 * nothing is traced. {@code postbox.tracing.enabled=false} turns it off; a {@link PostboxTracing} bean of the
 * application's own replaces it.
 */
@AutoConfiguration(beforeName = "dev.postbox.spring.autoconfigure.PostboxAutoConfiguration", afterName = {
        "org.springframework.boot.actuate.autoconfigure.tracing.MicrometerTracingAutoConfiguration",
        "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration"})
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

    /**
     * The tracing handler that gives send spans their links, ahead of Boot's sender handler (order 2000 on Boot 3.5 and
     * 4.0) in the first-matching group Boot makes of the tracing handlers.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"io.micrometer.tracing.Tracer", "dev.postbox.micrometer.PostboxSendTracingHandler"})
    static class SendLinks {

        /** Ahead of Boot's receiver (1000) and sender (2000) tracing handlers. */
        static final int ORDER = 900;

        @Bean
        @ConditionalOnBean({Tracer.class, Propagator.class})
        @ConditionalOnMissingBean
        @Order(ORDER)
        PostboxSendTracingHandler postboxSendTracingHandler(Tracer tracer, Propagator propagator) {
            return new PostboxSendTracingHandler(tracer, propagator);
        }
    }

    /** Loaded only when Micrometer Tracing is on the class path. */
    private static final class WithMicrometer {
        static PostboxTracing tracing(ListableBeanFactory beans) {
            Tracer tracer = beans.getBeanProvider(Tracer.class).getIfUnique();
            Propagator propagator = beans.getBeanProvider(Propagator.class).getIfUnique();
            if (tracer == null || propagator == null || tracer == Tracer.NOOP) {
                return null;
            }
            ObservationRegistry registry = beans.getBeanProvider(ObservationRegistry.class).getIfUnique();
            return registry != null && !registry.isNoop() ? new ObservationTracing(registry)
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
