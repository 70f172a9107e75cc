package dev.postbox.admin;

import dev.postbox.internal.Features;

/** Registers how {@code Postbox} makes this package's features ({@link Features}). */
final class Wiring {

    static {
        Features.provide(Admin.class, Void.class, (settings, none) -> new JdbcAdmin(settings));
    }

    private Wiring() {
    }
}
