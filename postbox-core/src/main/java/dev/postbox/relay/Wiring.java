package dev.postbox.relay;

import dev.postbox.internal.Features;

/** Registers how {@code Postbox} makes this package's features ({@link Features}). */
final class Wiring {

    static {
        Features.provide(RelayBuilder.class, dev.postbox.spi.Publisher.class, RelayBuilder::new);
    }

    private Wiring() {
    }
}
