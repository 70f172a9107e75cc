package dev.postbox.retention;

import dev.postbox.internal.Features;

/** Registers how {@code Postbox} makes this package's features ({@link Features}). */
final class Wiring {

    static {
        Features.provide(Retention.Builder.class, RetentionPolicy.class, Retention.Builder::new);
        Features.provide(OutboxPartitions.class, Void.class, (settings, none) -> new OutboxPartitions(settings));
    }

    private Wiring() {
    }
}
