package dev.postbox.spring.autoconfigure.metrics;

import dev.postbox.Postbox;
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

import java.util.LinkedHashSet;
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

    @Bean
    @ConditionalOnMissingBean
    BacklogMonitor postboxBacklogMonitor(Postbox postbox, PostboxProperties p, ObjectProvider<Retention> retention) {
        return new BacklogMonitor(postbox.queries(), p.getMetrics().getRefreshInterval(), retention.getIfUnique());
    }

    @Bean
    @ConditionalOnMissingBean
    PostboxMetrics postboxMetrics(BacklogMonitor monitor, ObjectProvider<PublisherRoute> routes,
                                  ObjectProvider<Retention> retention) {
        Set<String> channels = new LinkedHashSet<>();
        routes.orderedStream().forEach(r -> channels.addAll(r.channels()));
        return new PostboxMetrics(monitor, channels, retention.getIfUnique());
    }
}
