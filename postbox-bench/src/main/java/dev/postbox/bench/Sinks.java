package dev.postbox.bench;

import dev.postbox.spi.Publisher;

/**
 * The {@code --sink} choices: {@code null} (in-process, completes at once) and one per transport, each
 * through the transport module's real publisher to a real broker, read back from it for the
 * {@link Receiver}: {@code kafka} (in-process KRaft broker, {@link KafkaSink}), {@code rabbitmq}
 * ({@link RabbitSink}), {@code nats} ({@link NatsSink}) and {@code http} ({@link HttpSink}). A sink that is
 * {@link AutoCloseable} is closed with its {@link RelayGroup}.
 */
final class Sinks {

    static final String NULL = "null";
    static final String KAFKA = "kafka";
    static final String RABBITMQ = "rabbitmq";
    static final String NATS = "nats";
    static final String HTTP = "http";
    private static final java.util.List<String> ALL = java.util.List.of(NULL, KAFKA, RABBITMQ, NATS, HTTP);

    private Sinks() {
    }

    /** Checks the name early, before any database work. */
    static void validate(String name) {
        if (!ALL.contains(name)) {
            throw new UsageException("unknown --sink '" + name + "': one of " + String.join(", ", ALL));
        }
    }

    static Publisher create(String name, Receiver receiver) throws Exception {
        validate(name);
        return switch (name) {
            case KAFKA -> new KafkaSink(receiver);
            case RABBITMQ -> new RabbitSink(receiver);
            case NATS -> new NatsSink(receiver);
            case HTTP -> new HttpSink(receiver);
            default -> new NullSink(receiver);
        };
    }
}
