package dev.postbox.rabbitmq;

import java.time.Duration;

/** The defaults of {@link RabbitPublisher} and {@link RabbitConsumer}, one named constant each. */
public final class RabbitDefaults {

    /** How long a published event may wait for its publisher confirm before it is reported as retryable. */
    public static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(10);
    /** After a failed connection attempt, publishes fail fast (retryable) for this long before the next attempt. */
    public static final Duration RECONNECT_INTERVAL = Duration.ofSeconds(1);
    /** Unacknowledged deliveries a consumer holds at once ({@code basic.qos}). */
    public static final int PREFETCH = 100;
    /** Pause before a delivery whose handler failed is requeued, so that a failing handler does not spin. */
    public static final Duration REQUEUE_DELAY = Duration.ofMillis(500);
    /** {@code content-type} of every published event: payloads are JSON. */
    public static final String CONTENT_TYPE = "application/json";

    private RabbitDefaults() {
    }
}
