package dev.postbox.query;

import dev.postbox.internal.Settings;

/** Read access to both event tables: {@code postbox.queries().outbox().pending(...)}. Thread-safe. */
public final class Queries {

    private final OutboxQueries outbox;
    private final MessageQueries messages;
    private final OutboxArchiveQueries outboxArchive;
    private final OutboxSearch outboxSearch;
    private final MessageSearch messageSearch;
    private final Monitoring monitoring;

    /** Made by {@code Postbox} ({@link Wiring}); applications call {@code postbox.queries()}. */
    Queries(Settings settings) {
        this.outbox = new JdbcOutboxQueries(settings);
        this.messages = new JdbcMessageQueries(settings);
        this.outboxArchive = new JdbcOutboxArchiveQueries(settings);
        this.outboxSearch = new OutboxSearch(settings);
        this.messageSearch = new MessageSearch(settings);
        this.monitoring = new Monitoring(settings);
    }

    /** Table sizes, live relays and retryable compensations: what the meters and the Actuator endpoint read. */
    public Monitoring monitoring() {
        return monitoring;
    }

    /** Search of the outbox as a person types it ({@link SearchQuery}: an order number, event_no:, status:dead ...). */
    public OutboxSearch outboxSearch() {
        return outboxSearch;
    }

    /** Search of the message events likewise ({@link MessageSearchQuery}: a business id, biz:, event_no:, status: ...). */
    public MessageSearch messageSearch() {
        return messageSearch;
    }

    /** Queries on {@code biz_outbox_event}. */
    public OutboxQueries outbox() {
        return outbox;
    }

    /** Lookups of the outbox events retention archived, in {@code biz_outbox_event_archive}. */
    public OutboxArchiveQueries outboxArchive() {
        return outboxArchive;
    }

    /** Queries on {@code biz_message_event}. */
    public MessageQueries messages() {
        return messages;
    }
}
