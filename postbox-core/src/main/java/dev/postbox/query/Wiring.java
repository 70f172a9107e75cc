package dev.postbox.query;

import dev.postbox.internal.Features;

/** Registers how {@code Postbox} makes this package's features ({@link Features}). */
final class Wiring {

    static {
        Features.provide(Queries.class, Void.class, (settings, none) -> new Queries(settings));
    }

    private Wiring() {
    }
}
