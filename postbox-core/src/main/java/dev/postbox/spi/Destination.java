package dev.postbox.spi;

import java.util.Objects;

/**
 * Where a publisher sends an event, for traces ({@code messaging.system}, {@code messaging.destination.name})
 * and meters: see {@link Publisher#destination}.
 *
 * @param system the OpenTelemetry {@code messaging.system}: kafka, rabbitmq, nats, http, postbox (in-process)
 * @param name   the topic, exchange, subject or endpoint name; null when the event names none the publisher can send to
 */
public record Destination(String system, String name) {

    public Destination {
        Objects.requireNonNull(system, "system");
    }
}
