package dev.postbox.nats;

import dev.postbox.common.PostboxException;
import dev.postbox.common.ValidationException;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.Envelope;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.spi.Runs;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PublishOptions;
import io.nats.client.impl.NatsMessage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Publishes outbox events to NATS JetStream: the subject is {@code subjectPrefix + topic}, the envelope
 * travels in NATS headers with {@code Nats-Msg-Id = event_no} (JetStream drops a second copy within the
 * stream's duplicate window), the payload is the body, unchanged (UTF-8).
 * <pre>{@code
 * NatsPublisher nats = NatsPublisher.builder().servers("nats://127.0.0.1:4222").subjectPrefix("orders.").build();
 * Relay relay = postbox.relay(nats).instanceId("r1").start();
 * }</pre>
 * The whole batch is put in flight at once ({@code publishAsync}); each event's JetStream ack becomes its
 * {@link PublishResult}: an ack (also one marked duplicate) is PUBLISHED; no stream capturing the subject
 * (503 no responders), a subject NATS cannot take, a header it cannot carry or a body above the server's
 * max payload are DEAD; anything else (no ack within {@link Builder#ackTimeout}, connection lost, a
 * JetStream API error) is RETRY. A connection built here reconnects by itself, without limit; events
 * published while it is down fail as retryable and go out once it is back. Thread-safe.
 * <p>
 * <b>Order lane = the subject</b> ({@link Publisher#orderLane}): publishes go out in call order on the one
 * connection and one subject is stored by one stream in arrival order, so the relay hands over a whole
 * batch with every aggregate's run on one subject in one call. When an event of a run fails before it is
 * written (an invalid subject or header, a body above the server's max payload), the later events of its
 * aggregate in the call are not published. When the stream rejects one (its size or limits) while it
 * stores a later one of the run, that later one is reported not published ({@link Runs#stopAfterFailure})
 * and the relay sends it again after the failed one; its {@code Nats-Msg-Id} makes the stream acknowledge
 * the copy as a duplicate within the duplicate window, so the stream keeps the first copy, which precedes
 * the earlier event if that one is stored later.
 */
public final class NatsPublisher implements Publisher, AutoCloseable {

    /** Default of {@link Builder#ackTimeout}: 5 s, below the relay's send timeout (10 s). */
    public static final Duration DEFAULT_ACK_TIMEOUT = Duration.ofSeconds(5);
    /** Default of {@link Builder#reconnectWait}: 1 s. */
    public static final Duration DEFAULT_RECONNECT_WAIT = Duration.ofSeconds(1);
    /** Default of {@link Builder#connectionName}. */
    public static final String DEFAULT_CONNECTION_NAME = "postbox-relay";

    private final Connection connection;
    private final boolean ownsConnection;
    private final JetStream jetStream;
    private final String subjectPrefix;
    private final Duration ackTimeout;

    private NatsPublisher(Builder b, Connection connection, boolean ownsConnection) throws IOException {
        this.connection = connection;
        this.ownsConnection = ownsConnection;
        this.jetStream = connection.jetStream();
        this.subjectPrefix = b.subjectPrefix;
        this.ackTimeout = b.ackTimeout;
    }

    /** A builder; set either {@link Builder#servers} or {@link Builder#connection}. */
    public static Builder builder() {
        return new Builder();
    }

    /** The connection in use (owned, or the one given to the builder). */
    public Connection connection() {
        return connection;
    }

    @Override
    public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
        List<CompletionStage<PublishResult>> stages = new ArrayList<>(records.size());
        Map<List<String>, String> stopped = new HashMap<>(); // aggregate -> the event that failed unsent
        for (OutboxRecord r : records) {
            List<String> aggregate = Arrays.asList(r.aggregateType(), r.aggregateId());
            String failed = stopped.get(aggregate);
            if (failed != null) {
                stages.add(done(PublishResult.retry("not sent: event " + failed
                        + " of its aggregate failed before it in the same batch")));
                continue;
            }
            CompletionStage<PublishResult> stage = publish(r);
            PublishResult now = stage.toCompletableFuture().getNow(null);
            if (now != null && now.kind() != PublishResult.Kind.PUBLISHED) {
                stopped.put(aggregate, r.eventNo());
            }
            stages.add(stage);
        }
        return Runs.stopAfterFailure(records, stages);
    }

    /** The subject: one stream stores a subject's messages in the order this connection sent them. */
    @Override
    public Object orderLane(OutboxRecord event) {
        return subject(event);
    }

    /** NATS, the event's subject. */
    @Override
    public dev.postbox.spi.Destination destination(OutboxRecord event) {
        return new dev.postbox.spi.Destination("nats", subject(event));
    }

    private String subject(OutboxRecord r) {
        return subjectPrefix + (r.topic() == null ? "" : r.topic());
    }

    private CompletionStage<PublishResult> publish(OutboxRecord r) {
        String subject = subject(r);
        String invalid = Subjects.problem(subject);
        if (invalid != null) {
            return done(PublishResult.dead("topic '" + r.topic() + "' gives subject '" + subject
                    + "', not a NATS subject to publish to: " + invalid));
        }
        NatsMessage message;
        try {
            message = NatsMessage.builder().subject(subject).headers(NatsHeaders.of(Envelope.of(r)))
                    .data(r.payload().getBytes(StandardCharsets.UTF_8)).build();
        } catch (IllegalArgumentException e) {
            return done(PublishResult.dead("NATS cannot carry the headers of event " + r.eventNo() + ": " + e.getMessage()));
        }
        try {
            return jetStream.publishAsync(message, PublishOptions.builder().messageId(NatsHeaders.msgId(r.eventNo())).build())
                    .orTimeout(ackTimeout.toMillis(), TimeUnit.MILLISECONDS)
                    .handle((ack, error) -> error == null ? PublishResult.published() : Outcomes.of(subject, error));
        } catch (RuntimeException e) {
            return done(Outcomes.of(subject, e));
        }
    }

    private static CompletionStage<PublishResult> done(PublishResult result) {
        return CompletableFuture.completedFuture(result);
    }

    /** Closes the connection if the builder opened it; a connection given to the builder is left open. */
    @Override
    public void close() {
        if (!ownsConnection) {
            return;
        }
        try {
            connection.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Settings of a {@link NatsPublisher}, validated by {@link #build()}. Not thread-safe. */
    public static final class Builder {
        private String[] servers;
        private Connection connection;
        private String subjectPrefix = "";
        private Duration ackTimeout = DEFAULT_ACK_TIMEOUT;
        private Duration reconnectWait = DEFAULT_RECONNECT_WAIT;
        private String connectionName = DEFAULT_CONNECTION_NAME;

        private Builder() {
        }

        /**
         * Server URLs ({@code nats://host:4222}) of a connection the publisher opens, owns and closes. It
         * reconnects without limit every {@link #reconnectWait}, also when the first connect fails.
         */
        public Builder servers(String... servers) {
            this.servers = servers == null ? null : servers.clone();
            return this;
        }

        /**
         * An existing connection instead of {@link #servers}; its reconnect settings are the caller's (use
         * {@code maxReconnects(-1)}), and {@link NatsPublisher#close()} leaves it open.
         */
        public Builder connection(Connection connection) {
            this.connection = connection;
            return this;
        }

        /** Put before every topic to make the subject, e.g. {@code "orders."}; default none. Never null. */
        public Builder subjectPrefix(String subjectPrefix) {
            this.subjectPrefix = subjectPrefix;
            return this;
        }

        /** How long one event waits for its JetStream ack before it fails as retryable; default 5 s, positive. */
        public Builder ackTimeout(Duration ackTimeout) {
            this.ackTimeout = ackTimeout;
            return this;
        }

        /** Pause between reconnect attempts of an owned connection; default 1 s, zero or more. */
        public Builder reconnectWait(Duration reconnectWait) {
            this.reconnectWait = reconnectWait;
            return this;
        }

        /** Name of an owned connection, shown by the server's monitoring; default {@value NatsPublisher#DEFAULT_CONNECTION_NAME}. */
        public Builder connectionName(String connectionName) {
            this.connectionName = connectionName;
            return this;
        }

        /**
         * Validates the settings and opens the connection if {@link #servers} were given (a server that is
         * down does not fail this: the connection keeps trying in the background).
         *
         * @throws ValidationException a setting is missing or wrong, naming it
         * @throws PostboxException    the connection could not be set up for another reason
         */
        public NatsPublisher build() {
            if ((servers == null || servers.length == 0) == (connection == null)) {
                throw new ValidationException("servers", "set either servers(...) or connection(...), exactly one");
            }
            if (subjectPrefix == null) {
                throw new ValidationException("subjectPrefix", "must not be null (use \"\" for none)");
            }
            if (!subjectPrefix.isEmpty() && Subjects.problem(subjectPrefix + "x") != null) {
                throw new ValidationException("subjectPrefix", "'" + subjectPrefix + "' does not start a NATS subject: "
                        + Subjects.problem(subjectPrefix + "x"));
            }
            if (ackTimeout == null || ackTimeout.isNegative() || ackTimeout.isZero()) {
                throw new ValidationException("ackTimeout", "must be positive (was " + ackTimeout + ")");
            }
            if (reconnectWait == null || reconnectWait.isNegative()) {
                throw new ValidationException("reconnectWait", "must be zero or more (was " + reconnectWait + ")");
            }
            if (connectionName == null || connectionName.isBlank()) {
                throw new ValidationException("connectionName", "must not be blank");
            }
            try {
                if (connection != null) {
                    return new NatsPublisher(this, connection, false);
                }
                Connection owned = Nats.connectReconnectOnConnect(options());
                try {
                    return new NatsPublisher(this, owned, true);
                } catch (IOException | RuntimeException e) {
                    owned.close();
                    throw e;
                }
            } catch (IOException e) {
                throw new PostboxException("NATS connection to " + String.join(",", servers) + " failed: " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PostboxException("interrupted while connecting to NATS", e);
            }
        }

        private Options options() {
            ConnectionLog events = new ConnectionLog(connectionName);
            Options.Builder o = Options.builder().connectionName(connectionName).maxReconnects(-1)
                    .reconnectWait(reconnectWait).requestCleanupInterval(ackTimeout)
                    .connectionListener(events).errorListener(events);
            for (int i = 0; i < servers.length; i++) {
                String url = servers[i];
                if (url == null || url.isBlank()) {
                    throw new ValidationException("servers[" + i + "]", "must not be blank");
                }
                try {
                    o.server(url);
                } catch (IllegalArgumentException e) {
                    throw new ValidationException("servers[" + i + "]", "'" + url + "' is not a NATS URL: " + e.getMessage());
                }
            }
            return o.build();
        }
    }
}
