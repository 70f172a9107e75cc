package dev.postbox.outbox;

import dev.postbox.internal.Features;

/** Registers how {@code Postbox} makes this package's features ({@link Features}). */
final class Wiring {

    static {
        Features.provide(Outbox.class, Void.class, (settings, none) -> new JdbcOutbox(settings));
    }

    private Wiring() {
    }
}
