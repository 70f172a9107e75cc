package dev.postbox.spring.autoconfigure.health;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/** The {@code postbox} health component on Spring Boot 4 (spring-boot-health's contributor API). */
final class Boot4PostboxHealthIndicator extends AbstractHealthIndicator {

    private final PostboxHealth health;

    Boot4PostboxHealthIndicator(PostboxHealth health) {
        super("Postbox health check failed");
        this.health = health;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        PostboxHealth.Result r = health.check();
        (r.up() ? builder.up() : builder.down()).withDetails(r.details());
    }
}
