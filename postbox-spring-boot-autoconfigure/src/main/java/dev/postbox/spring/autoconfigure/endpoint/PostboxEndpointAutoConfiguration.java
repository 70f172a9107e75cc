package dev.postbox.spring.autoconfigure.endpoint;

import dev.postbox.Postbox;
import dev.postbox.spring.autoconfigure.PostboxAutoConfiguration;
import dev.postbox.spring.autoconfigure.metrics.BacklogMonitor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The read-only Actuator endpoint {@code postbox} ({@link PostboxEndpoint}) when Actuator is on the class path, on
 * Boot 3.5 and 4.0 alike (both keep the endpoint annotations in spring-boot-actuator). Like every endpoint, it is
 * served over HTTP only when exposed ({@code management.endpoints.web.exposure.include=postbox,...}) and switched
 * by Actuator's own {@code management.endpoint.postbox.*} properties.
 */
@AutoConfiguration(after = PostboxAutoConfiguration.class,
        afterName = "dev.postbox.spring.autoconfigure.metrics.PostboxMetricsAutoConfiguration")
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnBean(Postbox.class)
class PostboxEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    PostboxEndpoint postboxEndpoint(Postbox postbox, ObjectProvider<BacklogMonitor> monitor) {
        return new PostboxEndpoint(postbox, monitor.getIfUnique());
    }
}
