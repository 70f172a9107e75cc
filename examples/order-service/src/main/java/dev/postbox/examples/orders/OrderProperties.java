package dev.postbox.examples.orders;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * The {@code order.*} settings of the example.
 *
 * @param events       where the order events go
 * @param compensation the timeout cancellation
 * @param demo         what {@code scripts/demo} adds: the console's login, orders placed at start-up
 */
@ConfigurationProperties(prefix = "order")
public record OrderProperties(@DefaultValue Events events, @DefaultValue Compensation compensation,
                              @DefaultValue Demo demo) {

    /**
     * @param channel    the outbox channel of every order event; the relay routes it (event bus or Kafka); default MQ
     * @param topic      the topic of every order event; default {@code order.event}
     * @param maxRetries retries of an order event after its first failed publication before it goes DEAD; default 5
     *                   (Postbox's default)
     */
    public record Events(@DefaultValue("MQ") String channel, @DefaultValue("order.event") String topic,
                         @DefaultValue("5") int maxRetries) {
    }

    /**
     * @param seedOrders  orders placed at start-up (SKU-1 .. SKU-5, user {@code demo}) so the console has something
     *                    to show; default 0
     * @param consoleUser the console's demo login, whose password is generated at every start and logged once
     *                    (with {@code postbox.console.enabled=true}); default {@code admin}
     */
    public record Demo(@DefaultValue("0") int seedOrders, @DefaultValue("admin") String consoleUser) {
    }

    /**
     * @param timeout  how long an order may stay CREATED before it is cancelled (seed 003: 10 minutes)
     * @param interval how often the compensation job scans (seed 003: 10 s)
     */
    public record Compensation(@DefaultValue("10m") Duration timeout, @DefaultValue("10s") Duration interval) {

        public Compensation {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("order.compensation.timeout must be positive (was " + timeout + ")");
            }
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("order.compensation.interval must be positive (was " + interval + ")");
            }
        }
    }
}
