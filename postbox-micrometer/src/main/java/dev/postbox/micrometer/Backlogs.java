package dev.postbox.micrometer;

import dev.postbox.query.Backlog;
import dev.postbox.query.Queries;

import java.util.Objects;

/**
 * The backlogs of both Postbox tables, read together: the outbox (events to publish) and the message events
 * (work for the message-event worker).
 */
public record Backlogs(Backlog outbox, Backlog messages) {

    public Backlogs {
        Objects.requireNonNull(outbox, "outbox");
        Objects.requireNonNull(messages, "messages");
    }

    /** Reads both, the outbox first. */
    public static Backlogs read(Queries queries) {
        return new Backlogs(queries.outbox().backlog(), queries.messages().backlog());
    }
}
