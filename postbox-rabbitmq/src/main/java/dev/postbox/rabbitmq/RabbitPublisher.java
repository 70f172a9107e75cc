package dev.postbox.rabbitmq;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.common.ValidationException;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.Envelope;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.spi.Runs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URISyntaxException;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Publishes outbox events to RabbitMQ with publisher confirms: {@code topic} is the exchange (or the
 * {@linkplain Builder#defaultExchange default exchange} when the event has none), {@code routing_key} the
 * routing key ({@code ""} when null). Every message is persistent and {@code mandatory}, carries the
 * envelope as described in {@link AmqpEnvelopes}, and its stage completes with its own confirm:
 * <ul>
 *   <li>ack: PUBLISHED; nack: RETRY;</li>
 *   <li>returned as unroutable ({@code NO_ROUTE}): DEAD {@code unroutable: exchange 'x' routing key 'y' (NO_ROUTE)};</li>
 *   <li>the exchange does not exist (the broker closes the channel with 404): DEAD, and the next call
 *       opens a new channel;</li>
 *   <li>connection lost, broker unreachable, or no confirm within the confirm timeout: RETRY.</li>
 * </ul>
 * The whole batch is written to one channel in order and confirmed asynchronously; nothing blocks per
 * event.
 * <p>
 * <b>One order lane</b> ({@link Publisher#orderLane}): the channel routes messages in publish order, so the
 * relay hands over a whole batch, every aggregate's run in one call. When an event of a run fails before
 * it is written (no exchange, the channel is closed) the later events of its aggregate in the call are not
 * written. A missing exchange closes the channel, which fails everything written after it (all
 * aggregates: they are retried). A message returned as unroutable or nacked while a later one of its
 * aggregate is confirmed leaves that later one delivered: it is reported not published
 * ({@link Runs#stopAfterFailure}) and the relay sends it again after the failed one (a duplicate for the
 * consumer's inbox, which may have seen it first). The publisher owns one connection, made from a copy of the given factory with the client's
 * automatic recovery switched off (recovery would restart confirm sequence numbers under events still
 * in flight): after a connection loss the next call reconnects, at most once per reconnect interval.
 * Thread-safe (calls are serialized on the one channel); {@link #close()} fails what is still in flight
 * as retryable.
 * <pre>{@code
 * ConnectionFactory factory = new ConnectionFactory();
 * factory.setUri("amqp://guest:guest@127.0.0.1:5672");
 * try (RabbitPublisher rabbit = RabbitPublisher.builder(factory).build();
 *      Relay relay = postbox.relay(Routes.of("MQ", rabbit)).start()) { ... }
 * }</pre>
 */
public final class RabbitPublisher implements Publisher, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RabbitPublisher.class);

    private final ConnectionFactory factory;
    private final String defaultExchange;
    private final Duration confirmTimeout;
    private final long reconnectNanos;
    private final String connectionName;
    private final ReentrantLock lock = new ReentrantLock();
    private Connection connection;
    private ConfirmChannel channel;
    private long nextConnectAttempt;
    private String lastConnectFailure;
    private boolean closed;

    private RabbitPublisher(Builder b) {
        this.factory = b.factory.clone();
        this.factory.setAutomaticRecoveryEnabled(false);
        this.factory.setTopologyRecoveryEnabled(false);
        this.defaultExchange = b.defaultExchange;
        this.confirmTimeout = b.confirmTimeout;
        this.reconnectNanos = b.reconnectInterval.toNanos();
        this.connectionName = b.connectionName;
    }

    /**
     * A builder for a publisher connecting with (a copy of) {@code factory}: host, port, credentials, TLS,
     * timeouts. A connection attempt runs on the relay's thread and waits up to the factory's connection
     * timeout (the client's default is 60 s): set a few seconds where the broker's host may stop answering.
     */
    public static Builder builder(ConnectionFactory factory) {
        return new Builder(factory);
    }

    /** A builder for a publisher connecting to {@code uri}, e.g. {@code amqp://guest:guest@127.0.0.1:5672/vhost}. */
    public static Builder builder(String uri) {
        if (uri == null || uri.isBlank()) {
            throw new ValidationException("rabbitmq.uri", "must not be blank");
        }
        ConnectionFactory f = new ConnectionFactory();
        try {
            f.setUri(uri);
        } catch (URISyntaxException | GeneralSecurityException | IllegalArgumentException e) {
            throw new ValidationException("rabbitmq.uri", "is not an amqp:// or amqps:// URI (" + e.getMessage() + ")");
        }
        return new Builder(f);
    }

    @Override
    public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
        List<CompletionStage<PublishResult>> out = new ArrayList<>(records.size());
        lock.lock();
        try {
            ConfirmChannel ch;
            try {
                ch = openChannel();
            } catch (IOException | TimeoutException | RuntimeException e) {
                PublishResult down = PublishResult.retry("broker unavailable: " + e.getMessage());
                records.forEach(r -> out.add(CompletableFuture.completedFuture(down)));
                return out;
            }
            Map<List<String>, String> stopped = new HashMap<>(); // aggregate -> the event that failed unsent
            for (OutboxRecord r : records) {
                List<String> aggregate = Arrays.asList(r.aggregateType(), r.aggregateId());
                String failed = stopped.get(aggregate);
                if (failed != null) {
                    out.add(CompletableFuture.completedFuture(PublishResult.retry("not sent: event " + failed
                            + " of its aggregate failed before it in the same batch")));
                    continue;
                }
                CompletableFuture<PublishResult> stage = publish(ch, r);
                PublishResult now = stage.getNow(null);
                if (now != null && now.kind() != PublishResult.Kind.PUBLISHED) {
                    stopped.put(aggregate, r.eventNo());
                }
                out.add(stage);
            }
            return Runs.stopAfterFailure(records, out);
        } finally {
            lock.unlock();
        }
    }

    /** This publisher, for every event: its one channel routes a run of one aggregate in publish order. */
    @Override
    public Object orderLane(OutboxRecord event) {
        return this;
    }

    /** RabbitMQ, the exchange the event goes to (its topic, else the default exchange). */
    @Override
    public dev.postbox.spi.Destination destination(OutboxRecord event) {
        return new dev.postbox.spi.Destination("rabbitmq",
                event.topic() != null && !event.topic().isEmpty() ? event.topic() : defaultExchange);
    }

    private CompletableFuture<PublishResult> publish(ConfirmChannel ch, OutboxRecord r) {
        String exchange = r.topic() != null && !r.topic().isEmpty() ? r.topic() : defaultExchange;
        if (exchange == null) {
            return CompletableFuture.completedFuture(PublishResult.dead(
                    "no exchange: the event has no topic and the publisher no default exchange"));
        }
        Envelope envelope = Envelope.of(r);
        return ch.publish(exchange, r.routingKey() == null ? "" : r.routingKey(), AmqpEnvelopes.properties(envelope),
                        AmqpEnvelopes.body(envelope))
                .completeOnTimeout(PublishResult.retry("no publisher confirm within " + confirmTimeout),
                        confirmTimeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** The open channel, reconnecting if needed; under the lock. */
    private ConfirmChannel openChannel() throws IOException, TimeoutException {
        if (closed) {
            throw new IllegalStateException("the publisher is closed");
        }
        if (channel != null && channel.isOpen()) {
            return channel;
        }
        if (connection == null || !connection.isOpen()) {
            long now = System.nanoTime();
            if (lastConnectFailure != null && now - nextConnectAttempt < 0) {
                throw new IOException(lastConnectFailure);
            }
            try {
                connection = factory.newConnection(connectionName);
            } catch (IOException | TimeoutException | RuntimeException e) {
                nextConnectAttempt = now + reconnectNanos;
                String reason = describe(e);
                if (lastConnectFailure == null) {
                    log.warn("cannot connect to RabbitMQ at {}:{}: {}; retrying at most every {} ms",
                            factory.getHost(), factory.getPort(), reason, TimeUnit.NANOSECONDS.toMillis(reconnectNanos));
                }
                lastConnectFailure = "cannot connect to " + factory.getHost() + ":" + factory.getPort() + ": " + reason;
                throw new IOException(lastConnectFailure, e);
            }
            if (lastConnectFailure != null) {
                log.info("connected to RabbitMQ at {}:{} again", factory.getHost(), factory.getPort());
            }
            lastConnectFailure = null;
            connection.addShutdownListener(cause -> {
                if (!cause.isInitiatedByApplication()) {
                    log.warn("RabbitMQ connection lost: {}; events in flight will be retried", cause.getMessage());
                }
            });
        }
        channel = new ConfirmChannel(connection);
        return channel;
    }

    /** The first message in the cause chain (a cut handshake is an IOException without one around an EOF). */
    private static String describe(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                return t == e ? t.getMessage() : e.getClass().getSimpleName() + ": " + t.getMessage();
            }
        }
        return e.getClass().getSimpleName() + (e.getCause() == null ? "" : " (" + e.getCause().getClass().getSimpleName() + ")");
    }

    /** Closes the connection; events still waiting for their confirm complete as retryable. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            if (channel != null) {
                channel.close();
            }
            if (connection != null && connection.isOpen()) {
                connection.close();
            }
        } catch (IOException e) {
            log.debug("closing the RabbitMQ connection: {}", e.getMessage());
        } finally {
            lock.unlock();
        }
    }

    /** Settings of a {@link RabbitPublisher}, validated by {@link #build()}; not thread-safe. */
    public static final class Builder {
        private final ConnectionFactory factory;
        private String defaultExchange;
        private Duration confirmTimeout = RabbitDefaults.CONFIRM_TIMEOUT;
        private Duration reconnectInterval = RabbitDefaults.RECONNECT_INTERVAL;
        private String connectionName = "postbox-relay";

        private Builder(ConnectionFactory factory) {
            if (factory == null) {
                throw new ValidationException("rabbitmq.connectionFactory", "is required");
            }
            this.factory = factory;
        }

        /**
         * The exchange for events without a topic; default none (such events go DEAD). {@code ""} is the
         * AMQP default exchange, which routes by queue name: the routing key must then be the queue.
         */
        public Builder defaultExchange(String exchange) {
            this.defaultExchange = exchange;
            return this;
        }

        /** How long an event waits for its publisher confirm before it is reported retryable; default 10 s. */
        public Builder confirmTimeout(Duration timeout) {
            this.confirmTimeout = timeout;
            return this;
        }

        /** Minimum pause between connection attempts while the broker is unreachable; default 1 s; zero allowed. */
        public Builder reconnectInterval(Duration interval) {
            this.reconnectInterval = interval;
            return this;
        }

        /** The client-provided connection name shown in the management UI; default {@code postbox-relay}. */
        public Builder connectionName(String name) {
            this.connectionName = name;
            return this;
        }

        /** Validates the settings (no connection is made yet: the first publish connects). */
        public RabbitPublisher build() {
            if (confirmTimeout == null || confirmTimeout.isNegative() || confirmTimeout.isZero()) {
                throw new ValidationException("rabbitmq.confirmTimeout", "must be positive (was " + confirmTimeout + ")");
            }
            if (reconnectInterval == null || reconnectInterval.isNegative()) {
                throw new ValidationException("rabbitmq.reconnectInterval", "must be zero or positive (was "
                        + reconnectInterval + ")");
            }
            if (defaultExchange != null && defaultExchange.length() > 255) {
                throw new ValidationException("rabbitmq.defaultExchange", "must be at most 255 characters");
            }
            if (connectionName == null || connectionName.isBlank()) {
                throw new ValidationException("rabbitmq.connectionName", "must not be blank");
            }
            return new RabbitPublisher(this);
        }
    }
}
