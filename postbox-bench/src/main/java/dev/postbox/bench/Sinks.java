package dev.postbox.bench;

import dev.postbox.spi.Publisher;

/**
 * The {@code --sink} choices: {@code null} (in-process, completes at once) and {@code kafka} (a real
 * in-process KRaft broker, see {@link KafkaSink}). A sink that is {@link AutoCloseable} is closed with its
 * {@link RelayGroup}.
 */
final class Sinks {

    static final String NULL = "null";
    static final String KAFKA = "kafka";

    private Sinks() {
    }

    /** Checks the name early, before any database work. */
    static void validate(String name) {
        if (!NULL.equals(name) && !KAFKA.equals(name)) {
            throw new UsageException("unknown --sink '" + name + "': 'null' (in-process, completes at once) or"
                    + " 'kafka' (in-process KRaft broker) are implemented; rabbitmq, nats and http sinks come with"
                    + " their transport modules");
        }
    }

    static Publisher create(String name, Receiver receiver) throws Exception {
        validate(name);
        return KAFKA.equals(name) ? new KafkaSink(receiver) : new NullSink(receiver);
    }
}
