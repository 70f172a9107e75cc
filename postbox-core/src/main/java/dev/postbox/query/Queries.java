package dev.postbox.query;

import dev.postbox.internal.Settings;

/** Read access to both event tables: {@code postbox.queries().outbox().pending(...)}. Thread-safe. */
public final class Queries {

    private final OutboxQueries outbox;
    private final MessageQueries messages;

    /** Made by {@code Postbox} ({@link Wiring}); applications call {@code postbox.queries()}. */
    Queries(Settings settings) {
        this.outbox = new JdbcOutboxQueries(settings);
        this.messages = new JdbcMessageQueries(settings);
    }

    /** Queries on {@code biz_outbox_event}. */
    public OutboxQueries outbox() {
        return outbox;
    }

    /** Queries on {@code biz_message_event}. */
    public MessageQueries messages() {
        return messages;
    }
}
