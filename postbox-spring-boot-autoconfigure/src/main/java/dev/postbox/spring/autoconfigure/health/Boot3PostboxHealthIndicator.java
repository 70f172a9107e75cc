package dev.postbox.spring.autoconfigure.health;

import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/** The {@code postbox} health component on Spring Boot 3 (spring-boot-actuator's health API). */
final class Boot3PostboxHealthIndicator extends AbstractHealthIndicator {

    private final PostboxHealth health;

    Boot3PostboxHealthIndicator(PostboxHealth health) {
        super("Postbox health check failed");
        this.health = health;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        PostboxHealth.Result r = health.check();
        (r.up() ? builder.up() : builder.down()).withDetails(r.details());
    }
}
