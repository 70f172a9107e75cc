package dev.postbox.spring.autoconfigure.health;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Actuator's own switch for one indicator, on both Boot lines: {@code management.health.postbox.enabled}, which
 * defaults to {@code management.health.defaults.enabled} (true). (Boot 3 and Boot 4 keep their
 * {@code @ConditionalOnEnabledHealthIndicator} in different packages, so this reads the same properties itself.)
 */
final class ManagementHealthEnabled extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        var env = context.getEnvironment();
        boolean defaults = env.getProperty("management.health.defaults.enabled", Boolean.class, true);
        boolean enabled = env.getProperty("management.health.postbox.enabled", Boolean.class, defaults);
        return enabled ? ConditionOutcome.match("management.health.postbox.enabled is true")
                : ConditionOutcome.noMatch("management.health.postbox.enabled is false");
    }
}
