package dev.postbox.spring.autoconfigure.metrics;

import dev.postbox.Postbox;
import dev.postbox.compensation.CompensationJob;
import dev.postbox.spring.autoconfigure.listener.PostboxListeners;
import org.springframework.beans.factory.SmartInitializingSingleton;
import dev.postbox.micrometer.PostboxMetrics;
import dev.postbox.retention.Retention;
import dev.postbox.spring.PublisherRoute;
import dev.postbox.spring.autoconfigure.PostboxAutoConfiguration;
import dev.postbox.spring.autoconfigure.PostboxProperties;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The {@code postbox.*} Micrometer meters ({@link PostboxMetrics}) when Micrometer is on the class path and
 * {@code postbox.metrics.enabled} is true (the default). Boot binds the {@code MeterBinder} to its registry;
 * the relay and the worker report to it as a listener.
 */
@AutoConfiguration(after = PostboxAutoConfiguration.class, afterName = {
        "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(Postbox.class)
@ConditionalOnProperty(prefix = "postbox.metrics", name = "enabled", havingValue = "true", matchIfMissing = true)
class PostboxMetricsAutoConfiguration {

    /** The starter's route of the in-process event bus (PostboxAutoConfiguration). */
    static final String EVENT_BUS_ROUTE = "event-bus";

    @Bean
    @ConditionalOnMissingBean
    BacklogMonitor postboxBacklogMonitor(Postbox postbox, PostboxProperties p, ObjectProvider<Retention> retention,
                                         ObjectProvider<CompensationJob> jobs) {
        return new BacklogMonitor(postbox.queries(), p.getMetrics().getRefreshInterval(), retention.getIfUnique(),
                jobs.orderedStream().toList());
    }

    /**
     * The meters; an event's {@code destination} tag is the bus's route name for the in-process event bus and the
     * event's topic elsewhere (the Kafka topic, RabbitMQ exchange, NATS subject, HTTP endpoint name), its route's
     * name when it has none.
     */
    @Bean
    @ConditionalOnMissingBean
    PostboxMetrics postboxMetrics(BacklogMonitor monitor, ObjectProvider<PublisherRoute> routes,
                                  ObjectProvider<Retention> retention) {
        Set<String> channels = new LinkedHashSet<>();
        Map<String, String> routeOf = new HashMap<>();
        routes.orderedStream().forEach(r -> {
            channels.addAll(r.channels());
            r.channels().forEach(c -> routeOf.putIfAbsent(c, r.name()));
        });
        return PostboxMetrics.builder(monitor).channels(channels).retention(retention.getIfUnique())
                .destinations(e -> {
                    String route = routeOf.get(e.channel());
                    if (EVENT_BUS_ROUTE.equals(route) || e.topic() == null || e.topic().isBlank()) {
                        return route;
                    }
                    return e.topic();
                }, routeOf::get).build();
    }

    /** The inbox counters of every {@code @PostboxListener} consumer at 0 once the singletons exist. */
    @Bean
    static SmartInitializingSingleton postboxConsumerMeters(ObjectProvider<PostboxMetrics> metrics,
                                                            ObjectProvider<PostboxListeners> listeners) {
        return () -> {
            PostboxMetrics m = metrics.getIfUnique();
            PostboxListeners l = listeners.getIfUnique();
            if (m != null && l != null) {
                l.consumers().forEach(m::registerConsumer);
            }
        };
    }
}
