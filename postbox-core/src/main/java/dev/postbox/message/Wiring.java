package dev.postbox.message;

import dev.postbox.internal.Features;

/** Registers how {@code Postbox} makes this package's features ({@link Features}). */
final class Wiring {

    static {
        Features.provide(MessageEvents.class, Void.class, (settings, none) -> new JdbcMessageEvents(settings));
        Features.provide(MessageWorkerBuilder.class, Void.class, (settings, none) -> new MessageWorkerBuilder(settings));
    }

    private Wiring() {
    }
}
