package dev.postbox.inbox;

import dev.postbox.internal.Features;

/** Registers how {@code Postbox} makes this package's features ({@link Features}). */
final class Wiring {

    static {
        Features.provide(Inbox.class, InboxListener.class, JdbcInbox::new);
    }

    private Wiring() {
    }
}
