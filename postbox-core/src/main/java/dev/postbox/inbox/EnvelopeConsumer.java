package dev.postbox.inbox;

import dev.postbox.common.PostboxSqlException;
import dev.postbox.spi.Envelope;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * The consuming side of every transport: hands one delivery to the consumer's handler inside its own
 * transaction, guarded by the {@link Inbox}, and says whether the delivery may be acknowledged.
 * <pre>{@code
 * EnvelopeConsumer inventory = new EnvelopeConsumer(dataSource, postbox.inbox(), "inventory",
 *         (c, e) -> reserveStock(c, e.aggregateId()));
 * InboxResult<Void> r = inventory.accept(envelope);   // then acknowledge; on an exception, do not
 * }</pre>
 * Acknowledge only after {@link #accept} returned (the work and the inbox row are committed by then),
 * for {@code RAN} and {@code DUPLICATE} alike; when it throws, nothing was committed and the delivery
 * must come again (negative acknowledgement, no ack, or an HTTP error status). Thread-safe if the
 * handler is.
 */
public final class EnvelopeConsumer {

    /** The consumer's work for one event, in the transaction of {@code connection} (do not commit it). */
    @FunctionalInterface
    public interface Handler {
        void handle(Connection connection, Envelope envelope) throws Exception;
    }

    private final DataSource dataSource;
    private final Inbox inbox;
    private final String consumer;
    private final Handler handler;

    public EnvelopeConsumer(DataSource dataSource, Inbox inbox, String consumer, Handler handler) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.inbox = Objects.requireNonNull(inbox, "inbox");
        this.consumer = Objects.requireNonNull(consumer, "consumer");
        this.handler = Objects.requireNonNull(handler, "handler");
    }

    /** The consumer name recorded in the consume log. */
    public String consumer() {
        return consumer;
    }

    /**
     * Runs the handler once per event number and commits; a duplicate commits nothing and is reported.
     *
     * @throws RuntimeException the handler's failure (checked ones wrapped) or a database error: nothing
     *                          was committed, do not acknowledge
     */
    public InboxResult<Void> accept(Envelope envelope) {
        Objects.requireNonNull(envelope, "envelope");
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                InboxResult<Void> result = inbox.once(c, consumer, envelope.eventNo(), () -> handler.handle(c, envelope));
                c.commit();
                return result;
            } catch (RuntimeException | SQLException e) {
                rollbackQuietly(c, e);
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw new PostboxSqlException("consumer '" + consumer + "' for event " + envelope.eventNo(), e);
        }
    }

    private static void rollbackQuietly(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }
}
