package dev.postbox.spring.autoconfigure.health;

import dev.postbox.Postbox;
import dev.postbox.retention.Retention;
import dev.postbox.spring.autoconfigure.PostboxAutoConfiguration;
import dev.postbox.spring.autoconfigure.PostboxProperties;
import dev.postbox.spring.autoconfigure.RelayLifecycle;
import dev.postbox.spring.autoconfigure.metrics.BacklogMonitor;
import dev.postbox.spring.autoconfigure.listener.PostboxListeners;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code postbox} health component (bean {@code postboxHealthIndicator}) when Actuator is present and
 * {@code postbox.health.enabled} is true (the default) and Actuator's {@code management.health.postbox.enabled} is
 * not false, on Boot 3 (spring-boot-actuator's
 * {@code org.springframework.boot.actuate.health}) or Boot 4 (spring-boot-health). Boot 4's spring-boot-actuator
 * no longer has the Boot 3 package, so on each line exactly one of the two adapters applies; the Boot 3 one
 * wins where both APIs are on the class path, because a Boot 3 actuator reads only its own.
 */
@AutoConfiguration(after = PostboxAutoConfiguration.class, afterName = {
        "dev.postbox.spring.autoconfigure.metrics.PostboxMetricsAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration",
        "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration"})
@ConditionalOnBean(Postbox.class)
@ConditionalOnProperty(prefix = "postbox.health", name = "enabled", havingValue = "true", matchIfMissing = true)
@Conditional(ManagementHealthEnabled.class)
public class PostboxHealthAutoConfiguration {

    /** The bean name; Actuator shows it as the component {@code postbox}. */
    public static final String BEAN_NAME = "postboxHealthIndicator";

    static final String BOOT3_INDICATOR = "org.springframework.boot.actuate.health.AbstractHealthIndicator";
    static final String BOOT4_INDICATOR = "org.springframework.boot.health.contributor.AbstractHealthIndicator";

    static PostboxHealth health(Postbox postbox, PostboxProperties p, ObjectProvider<BacklogMonitor> monitor,
                                ObjectProvider<RelayLifecycle> relay, ObjectProvider<Retention> retention,
                                ObjectProvider<PostboxListeners> listeners) {
        RelayLifecycle r = relay.getIfUnique();
        return new PostboxHealth(postbox.queries(), monitor.getIfUnique(),
                p.getHealth().getMaxOldestPendingAge(), p.getHealth().getMaxDead(), r == null ? null : r::relayWorking,
                r == null ? null : r::relayClockTrusted, retention.getIfUnique(), listeners.getIfUnique());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = BOOT3_INDICATOR)
    static class Boot3 {

        @Bean(BEAN_NAME)
        @ConditionalOnMissingBean(name = BEAN_NAME)
        Boot3PostboxHealthIndicator postboxHealthIndicator(Postbox postbox, PostboxProperties p,
                                                           ObjectProvider<BacklogMonitor> monitor,
                                                           ObjectProvider<RelayLifecycle> relay,
                                                           ObjectProvider<Retention> retention,
                                                           ObjectProvider<PostboxListeners> listeners) {
            return new Boot3PostboxHealthIndicator(health(postbox, p, monitor, relay, retention, listeners));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = BOOT4_INDICATOR)
    @ConditionalOnMissingClass(BOOT3_INDICATOR)
    static class Boot4 {

        @Bean(BEAN_NAME)
        @ConditionalOnMissingBean(name = BEAN_NAME)
        Boot4PostboxHealthIndicator postboxHealthIndicator(Postbox postbox, PostboxProperties p,
                                                           ObjectProvider<BacklogMonitor> monitor,
                                                           ObjectProvider<RelayLifecycle> relay,
                                                           ObjectProvider<Retention> retention,
                                                           ObjectProvider<PostboxListeners> listeners) {
            return new Boot4PostboxHealthIndicator(health(postbox, p, monitor, relay, retention, listeners));
        }
    }
}
