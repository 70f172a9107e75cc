package dev.postbox.test.spring;

import dev.postbox.spring.autoconfigure.PostboxAutoConfiguration;
import dev.postbox.spring.autoconfigure.RelayLifecycle;
import dev.postbox.test.RecordingPublisher;
import dev.postbox.test.TestClock;
import dev.postbox.test.spring.shop.OrderService;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

import java.time.Duration;

/**
 * The starter's relay under {@code @PostboxTest} on a test clock an hour ahead of the database's from the start (the
 * application's own {@code TestClock}, named {@code postboxClock}): whether it still trusts its clock, and so takes
 * over expired leases, depends on {@code postbox.relay.clock-skew-check}, which {@code @PostboxTest} turns off unless
 * the test sets it. Bound twice: the default, and the check set on.
 */
abstract class ShopClockSkewContract {

    /** The application's test clock, an hour ahead of the database's. */
    @TestConfiguration(proxyBeanMethods = false)
    static class HourAhead {
        @Bean(PostboxAutoConfiguration.CLOCK_BEAN)
        @Primary
        TestClock hourAhead() {
            TestClock clock = TestClock.systemNow();
            clock.advance(Duration.ofHours(1));
            return clock;
        }
    }

    @Autowired
    OrderService orders;
    @Autowired
    PostboxAwait postboxAwait;
    @Autowired
    RecordingPublisher publisher;
    @Autowired
    RelayLifecycle relay;

    /** Whether the relay should trust its clock in this binding. */
    abstract boolean trusted();

    @Test
    final void theRelaysTrustInItsClockFollowsTheProperty() {
        orders.place("skew-1", "ink");
        postboxAwait.awaitQuiescence();                      // the relay measured its clock at its first claim
        publisher.assertPublished("ORDER_CREATED:skew-1");   // new events go out either way
        org.assertj.core.api.Assertions.assertThat(relay.relayClockTrusted()).isEqualTo(trusted());
    }
}
