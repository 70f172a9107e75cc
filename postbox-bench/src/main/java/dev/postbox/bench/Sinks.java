package dev.postbox.bench;

import dev.postbox.spi.Publisher;

/** The {@code --sink} choices. Only {@code null} exists now; broker sinks come with the transport modules. */
final class Sinks {

    static final String NULL = "null";

    private Sinks() {
    }

    /** Checks the name early, before any database work. */
    static void validate(String name) {
        if (!NULL.equals(name)) {
            throw new UsageException("unknown --sink '" + name + "': only 'null' (in-process, completes at once) is"
                    + " implemented; kafka, rabbitmq, nats and http sinks come with the transport modules");
        }
    }

    static Publisher create(String name, Receiver receiver) {
        validate(name);
        return new NullSink(receiver);
    }
}
