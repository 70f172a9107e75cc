package dev.postbox.nats;

import dev.postbox.common.PostboxException;
import dev.postbox.common.ValidationException;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.inbox.InboxResult;
import dev.postbox.internal.poll.PollLoop;
import dev.postbox.spi.Envelope;
import io.nats.client.Connection;
import io.nats.client.ConsumerContext;
import io.nats.client.ConsumeOptions;
import io.nats.client.IterableConsumer;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamStatusCheckedException;
import io.nats.client.Message;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/**
 * Consumes Postbox events from a JetStream stream through the inbox: a durable pull consumer with
 * explicit acks, read by one continuous pull; every message is read back with {@link Envelope#fromHeaders} and handed
 * to an {@link EnvelopeConsumer}, then acknowledged once {@code accept} returned (RAN or DUPLICATE, so a
 * redelivered or re-published event acks without running the work again). A handler failure is
 * negatively acknowledged with {@link Builder#nakDelay} and comes again; a message that is not a Postbox
 * envelope is logged with the missing header and terminated ({@code term()}), never redelivered.
 * <pre>{@code
 * EnvelopeConsumer inventory = new EnvelopeConsumer(dataSource, postbox.inbox(), "inventory", (c, e) -> reserve(c, e));
 * try (NatsSubscriber s = NatsSubscriber.builder(connection, inventory).stream("ORDERS").build().start()) { ... }
 * }</pre>
 * Messages of one batch are handled one after another in stream order. A nak'd message comes back after
 * the messages behind it, so under handler failures the order of one aggregate is not kept unless the
 * consumer's {@code maxAckPending} is 1 (see {@link Builder#maxAckPending}). {@link #pollOnce()} is for
 * one thread at a time; {@link #start()} runs it in a loop on its own thread.
 */
public final class NatsSubscriber implements AutoCloseable {

    /** Default of {@link Builder#batchSize}. */
    public static final int DEFAULT_BATCH_SIZE = 100;
    /** Default of {@link Builder#maxWait}: 1 s. */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(1);
    /** Default of {@link Builder#nakDelay}: 1 s. */
    public static final Duration DEFAULT_NAK_DELAY = Duration.ofSeconds(1);
    /** Default of {@link Builder#ackWait}: 30 s, JetStream's own default. */
    public static final Duration DEFAULT_ACK_WAIT = Duration.ofSeconds(30);

    private static final Logger log = LoggerFactory.getLogger(NatsSubscriber.class);

    /**
     * What one {@link #pollOnce()} did.
     *
     * @param fetched    messages received
     * @param ran        handed to the work, which ran and committed; acked
     * @param duplicates already consumed: acked without running the work
     * @param failed     the work or the database failed: nak'd, will come again
     * @param rejected   not a Postbox envelope: terminated
     */
    public record Poll(int fetched, int ran, int duplicates, int failed, int rejected) {
    }

    /** Shortest wait {@link IterableConsumer#nextMessage(Duration)} takes (zero would wait forever). */
    private static final Duration NO_WAIT = Duration.ofMillis(1);
    /** The pause of the polling thread after a failed read, before it reads again. */
    private static final Duration RETRY_PAUSE = Duration.ofSeconds(1);

    private final ConsumerContext consumer;
    private final EnvelopeConsumer envelopes;
    private final int batchSize;
    private final Duration maxWait;
    private final Duration nakDelay;
    private final long ackWaitMillis;
    private final String name;
    private IterableConsumer messages;
    private PollLoop loop;

    private NatsSubscriber(Builder b, ConsumerContext consumer) {
        this.consumer = consumer;
        this.envelopes = b.envelopes;
        this.batchSize = b.batchSize;
        this.maxWait = b.maxWait;
        this.nakDelay = b.nakDelay;
        this.name = b.stream + "/" + b.durable;
        this.ackWaitMillis = b.ackWait.toMillis();
    }

    /**
     * A builder for a subscriber on {@code connection} (not closed by {@link #close()}) that hands every
     * event to {@code envelopes}.
     */
    public static Builder builder(Connection connection, EnvelopeConsumer envelopes) {
        return new Builder(connection, envelopes);
    }

    /**
     * Handles up to {@link Builder#batchSize} messages: waits up to {@link Builder#maxWait} for the first,
     * then takes those already received, one after another.
     *
     * @throws PostboxException the consumer cannot be read (deleted, JetStream gone)
     */
    public Poll pollOnce() {
        int fetched = 0;
        int ran = 0;
        int duplicates = 0;
        int failed = 0;
        int rejected = 0;
        try {
            IterableConsumer pull = messages();
            for (Message m = pull.nextMessage(maxWait); m != null; m = fetched < batchSize ? pull.nextMessage(NO_WAIT) : null) {
                fetched++;
                switch (handle(m)) {
                    case RAN -> ran++;
                    case DUPLICATE -> duplicates++;
                    case FAILED -> failed++;
                    case REJECTED -> rejected++;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | JetStreamApiException | JetStreamStatusCheckedException e) {
            throw new PostboxException("reading " + name + " failed: " + e.getMessage(), e);
        }
        return new Poll(fetched, ran, duplicates, failed, rejected);
    }

    /**
     * One continuous pull for the subscriber's life, not a pull per poll: a short pull that ends while
     * the server still sends leaves those messages unacknowledged until the ack wait (then out of order).
     */
    private synchronized IterableConsumer messages() throws IOException, JetStreamApiException {
        if (messages == null) {
            messages = consumer.iterate(ConsumeOptions.builder().batchSize(batchSize).build());
        }
        return messages;
    }

    private enum Handled { RAN, DUPLICATE, FAILED, REJECTED }

    private Handled handle(Message m) {
        Envelope envelope;
        try {
            envelope = Envelope.fromHeaders(NatsHeaders.toMap(m.getHeaders()),
                    m.getData() == null ? null : new String(m.getData(), StandardCharsets.UTF_8));
        } catch (ValidationException e) {
            log.warn("{}: message on '{}' (stream sequence {}) is not a Postbox envelope, terminated: {} ({})",
                    name, m.getSubject(), sequence(m), e.field(), e.getMessage());
            m.term();
            return Handled.REJECTED;
        }
        InboxResult<Void> result;
        try {
            result = envelopes.accept(envelope);
        } catch (RuntimeException e) {
            log.warn("{}: consumer '{}' failed on event {}, redelivered in {}: {}", name, envelopes.consumer(),
                    envelope.eventNo(), nakDelay, e.toString());
            m.nakWithDelay(nakDelay);
            return Handled.FAILED;
        }
        m.ack();
        return result.ran() ? Handled.RAN : Handled.DUPLICATE;
    }

    private static Object sequence(Message m) {
        try {
            return m.metaData().streamSequence();
        } catch (RuntimeException e) {
            return "?";
        }
    }

    /** Polls on a daemon thread until {@link #close()}; a failed read is logged and retried after a second. */
    public synchronized NatsSubscriber start() {
        if (loop != null) {
            throw new IllegalStateException(name + " already started");
        }
        // a turn waits up to maxWait in pollOnce() and answers MORE; the engine waits only after a failed
        // read (what pollOnce() throws), RETRY_PAUSE
        PollLoop l = new PollLoop("NATS subscriber " + name, "postbox-nats-" + name, 1, RETRY_PAUSE, RETRY_PAUSE, log);
        loop = l;
        l.start(i -> () -> turn(l));
        return this;
    }

    /** One {@link #pollOnce()}; an {@link Error} (of the work, say) stops the subscriber for good. */
    private PollLoop.Outcome turn(PollLoop l) {
        try {
            pollOnce();
        } catch (Error e) {
            log.error("{}: stopped on an unexpected error", name, e);
            l.close(Duration.ZERO, Duration.ZERO); // from the loop's thread: no turn follows
        }
        return PollLoop.Outcome.MORE;
    }

    /**
     * Stops the polling thread (waiting for the batch in hand) and the pull; messages received but not
     * handled yet come again after the ack wait. Leaves the connection and the durable consumer as they are.
     */
    @Override
    public void close() {
        PollLoop l;
        synchronized (this) {
            l = loop;
        }
        if (l != null) {
            l.closeUninterrupted(maxWait.plusMillis(ackWaitMillis));
        }
        IterableConsumer m;
        synchronized (this) {
            m = messages;
            messages = null;
        }
        if (m != null) {
            try {
                m.close();
            } catch (Exception e) {
                log.debug("{}: closing the pull: {}", name, e.toString());
            }
        }
    }

    /** Settings of a {@link NatsSubscriber}, validated by {@link #build()}. Not thread-safe. */
    public static final class Builder {
        private final Connection connection;
        private final EnvelopeConsumer envelopes;
        private String stream;
        private String durable;
        private String filterSubject;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private Duration maxWait = DEFAULT_MAX_WAIT;
        private Duration nakDelay = DEFAULT_NAK_DELAY;
        private Duration ackWait = DEFAULT_ACK_WAIT;
        private long maxAckPending = -1;

        private Builder(Connection connection, EnvelopeConsumer envelopes) {
            this.connection = Objects.requireNonNull(connection, "connection");
            this.envelopes = Objects.requireNonNull(envelopes, "envelopes");
        }

        /** The JetStream stream to read; required. */
        public Builder stream(String stream) {
            this.stream = stream;
            return this;
        }

        /** Name of the durable consumer, created or updated by {@link #build()}; default the inbox consumer's name. */
        public Builder durable(String durable) {
            this.durable = durable;
            return this;
        }

        /** Only subjects matching this filter (wildcards allowed); default all of the stream's subjects. */
        public Builder filterSubject(String filterSubject) {
            this.filterSubject = filterSubject;
            return this;
        }

        /** Messages per {@link #pollOnce()} and per pull from JetStream, 1..10000; default {@value NatsSubscriber#DEFAULT_BATCH_SIZE}. */
        public Builder batchSize(int batchSize) {
            this.batchSize = batchSize;
            return this;
        }

        /** How long {@link #pollOnce()} waits for a first message; default 1 s, at least 1 ms. */
        public Builder maxWait(Duration maxWait) {
            this.maxWait = maxWait;
            return this;
        }

        /** How long a failed message waits before it is redelivered; default 1 s, zero or more. */
        public Builder nakDelay(Duration nakDelay) {
            this.nakDelay = nakDelay;
            return this;
        }

        /**
         * How long JetStream waits for an ack before it redelivers; default 30 s, positive. Up to
         * {@link #batchSize} messages wait in the client's buffer, so it must cover a batch's work.
         */
        public Builder ackWait(Duration ackWait) {
            this.ackWait = ackWait;
            return this;
        }

        /** Unacknowledged messages JetStream lets out at once; default the server's (-1); 1 keeps order under failures. */
        public Builder maxAckPending(long maxAckPending) {
            this.maxAckPending = maxAckPending;
            return this;
        }

        /**
         * Validates the settings and creates or updates the durable pull consumer (explicit ack, from the
         * stream's first message).
         *
         * @throws ValidationException a setting is missing or wrong, naming it
         * @throws PostboxException    the stream does not exist or JetStream refused the consumer
         */
        public NatsSubscriber build() {
            if (stream == null || stream.isBlank()) {
                throw new ValidationException("stream", "is required");
            }
            String name = durable == null ? envelopes.consumer() : durable;
            String badName = badName(name);
            if (badName != null) {
                throw new ValidationException("durable", "'" + name + "' " + badName
                        + (durable == null ? " (taken from the inbox consumer name; set durable(...))" : ""));
            }
            durable = name;
            if (batchSize < 1 || batchSize > 10_000) {
                throw new ValidationException("batchSize", "must be 1..10000 (was " + batchSize + ")");
            }
            if (maxWait == null || maxWait.toMillis() < 1) {
                throw new ValidationException("maxWait", "must be at least 1 ms (was " + maxWait + ")");
            }
            if (nakDelay == null || nakDelay.isNegative()) {
                throw new ValidationException("nakDelay", "must be zero or more (was " + nakDelay + ")");
            }
            if (ackWait == null || ackWait.isNegative() || ackWait.isZero()) {
                throw new ValidationException("ackWait", "must be positive (was " + ackWait + ")");
            }
            if (maxAckPending == 0 || maxAckPending < -1) {
                throw new ValidationException("maxAckPending", "must be positive or -1 (was " + maxAckPending + ")");
            }
            ConsumerConfiguration.Builder config = ConsumerConfiguration.builder().durable(durable)
                    .ackPolicy(AckPolicy.Explicit).deliverPolicy(DeliverPolicy.All).ackWait(ackWait)
                    .maxAckPending(maxAckPending);
            if (filterSubject != null) {
                config.filterSubject(filterSubject);
            }
            try {
                return new NatsSubscriber(this, connection.getStreamContext(stream).createOrUpdateConsumer(config.build()));
            } catch (IOException | JetStreamApiException e) {
                throw new PostboxException("JetStream consumer '" + durable + "' on stream '" + stream + "': " + e.getMessage(), e);
            }
        }

        private static String badName(String name) {
            if (name.isBlank()) {
                return "is blank";
            }
            for (int i = 0; i < name.length(); i++) {
                char c = name.charAt(i);
                if (c == '.' || c == '*' || c == '>' || c <= ' ' || c > '~') {
                    return "is not a JetStream consumer name (no '.', '*', '>', whitespace or non-ASCII)";
                }
            }
            return null;
        }
    }
}
