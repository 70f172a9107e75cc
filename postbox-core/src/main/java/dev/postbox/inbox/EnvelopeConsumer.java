package dev.postbox.inbox;

import dev.postbox.spi.Envelope;
import dev.postbox.tracing.LogContext;
import dev.postbox.tracing.PostboxTracing;
import dev.postbox.tracing.SpanRequest;
import dev.postbox.tracing.TraceSpan;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.Map;
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

    /**
     * Told what each delivery came to, after its transaction ended (metrics, tests waiting for a consumer). Runs
     * on the delivering thread before {@link #accept} returns; what it throws is logged and otherwise ignored, so
     * that an observer never turns a committed delivery into a redelivery.
     */
    @FunctionalInterface
    public interface Observer {
        /**
         * @param envelope the delivery
         * @param result   RAN or DUPLICATE when the transaction committed; null when it did not
         * @param failure  why nothing was committed; null when it was
         */
        void accepted(Envelope envelope, InboxResult<Void> result, RuntimeException failure);
    }

    private static final Logger log = LoggerFactory.getLogger(EnvelopeConsumer.class);

    private final ConsumerTransactions transactions;
    private final Inbox inbox;
    private final String consumer;
    private final Handler handler;
    private final Observer observer;
    private final Traced traced;

    /** The tracer of {@link #traced}, and what the process spans name. */
    private record Traced(PostboxTracing tracing, String system, String destination) {
    }

    /** A consumer whose deliveries each run on a connection of {@code dataSource} of their own ({@link ConsumerTransactions#jdbc}). */
    public EnvelopeConsumer(DataSource dataSource, Inbox inbox, String consumer, Handler handler) {
        this(ConsumerTransactions.jdbc(dataSource), inbox, consumer, handler);
    }

    /**
     * A consumer whose deliveries run in the transactions of {@code transactions}: a framework's, so that the
     * handler's own data-access code joins the transaction of the consume-log row.
     */
    public EnvelopeConsumer(ConsumerTransactions transactions, Inbox inbox, String consumer, Handler handler) {
        this(transactions, inbox, consumer, handler, null, null);
    }

    private EnvelopeConsumer(ConsumerTransactions transactions, Inbox inbox, String consumer, Handler handler,
                             Observer observer, Traced traced) {
        this.traced = traced;
        this.transactions = Objects.requireNonNull(transactions, "transactions");
        this.inbox = Objects.requireNonNull(inbox, "inbox");
        this.consumer = Objects.requireNonNull(consumer, "consumer");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.observer = observer;
    }

    /**
     * This consumer, also telling {@code observer} what each delivery came to (after any observer given before).
     * <pre>{@code
     * EnvelopeConsumer observed = inventory.observed((envelope, result, failure) ->
     *         meter(failure != null ? "failed" : result.duplicate() ? "duplicate" : "ran"));
     * }</pre>
     */
    public EnvelopeConsumer observed(Observer observer) {
        Objects.requireNonNull(observer, "observer");
        Observer before = this.observer;
        Observer both = before == null ? observer : (e, r, f) -> {
            before.accepted(e, r, f);
            observer.accepted(e, r, f);
        };
        return new EnvelopeConsumer(transactions, inbox, consumer, handler, both, traced);
    }

    /**
     * This consumer, with each delivery in a {@code process {destination}} span of {@code tracing}: the child of the
     * creation context the delivery carries ({@code traceparent}, {@code tracestate}, {@code baggage}), so that the
     * consumer's work joins the trace of the request that wrote the event; current while the handler runs, with
     * the log context ({@link LogContext}) set.
     * <pre>{@code
     * EnvelopeConsumer traced = inventory.traced(postbox.tracing(), "rabbitmq", "orders");
     * }</pre>
     *
     * @param system      {@code messaging.system} of the transport: kafka, rabbitmq, nats, http, postbox
     * @param destination the queue, topic, subject or endpoint the deliveries come from
     */
    public EnvelopeConsumer traced(PostboxTracing tracing, String system, String destination) {
        Objects.requireNonNull(tracing, "tracing");
        return new EnvelopeConsumer(transactions, inbox, consumer, handler, observer,
                tracing == PostboxTracing.NOOP ? null : new Traced(tracing, system, destination));
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
        TraceSpan span = processSpan(envelope);
        try (TraceSpan.Scope current = span.makeCurrent();
             LogContext logs = LogContext.open(envelope.eventNo(),
                     LogContext.aggregate(envelope.aggregateType(), envelope.aggregateId()), span)) {
            InboxResult<Void> result = run(envelope);
            span.end(null);
            return result;
        } catch (RuntimeException | Error e) {
            span.end(e);
            throw e;
        }
    }

    private TraceSpan processSpan(Envelope envelope) {
        if (traced == null) {
            return TraceSpan.NOOP;
        }
        try {
            Map<String, String> carrier = new LinkedHashMap<>(envelope.headers());
            if (envelope.traceparent() != null) {
                carrier.put(Envelope.TRACEPARENT, envelope.traceparent());
            }
            return traced.tracing().start(SpanRequest.process(traced.system(), traced.destination(), envelope.eventNo(),
                    envelope.aggregateId(), consumer, carrier, Map.of("postbox.event.type", envelope.eventType(),
                            "postbox.aggregate.type", envelope.aggregateType())));
        } catch (RuntimeException tracerFailed) {
            return TraceSpan.NOOP; // a tracer never turns a delivery into a failure
        }
    }

    private InboxResult<Void> run(Envelope envelope) {
        InboxResult<Void> result;
        try {
            result = transactions.inTransaction("consumer '" + consumer + "' for event " + envelope.eventNo(),
                    c -> inbox.once(c, consumer, envelope.eventNo(), () -> handler.handle(c, envelope)));
        } catch (RuntimeException e) {
            tell(envelope, null, e);
            throw e;
        }
        tell(envelope, result, null);
        return result;
    }

    private void tell(Envelope envelope, InboxResult<Void> result, RuntimeException failure) {
        if (observer == null) {
            return;
        }
        try {
            observer.accepted(envelope, result, failure);
        } catch (RuntimeException e) {
            log.warn("Consumer '{}': an observer failed on event {}: {}", consumer, envelope.eventNo(), e.toString());
        }
    }
}
