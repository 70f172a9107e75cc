package dev.postbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import dev.postbox.common.ValidationException;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.spi.Envelope;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.TimeoutException;

/**
 * Consumes one queue into an {@link EnvelopeConsumer}, with manual acknowledgements on its own
 * connection and channel. Each delivery is read with {@link AmqpEnvelopes#envelope}, handed to
 * {@link EnvelopeConsumer#accept} (the work and its inbox row commit together) and then:
 * <ul>
 *   <li>acknowledged ({@code basic.ack}) once {@code accept} returned, RAN or DUPLICATE alike;</li>
 *   <li>requeued ({@code basic.nack}, requeue) after the requeue delay when the handler or the database
 *       failed: it comes again;</li>
 *   <li>rejected without requeue ({@code basic.reject}) when it is not a Postbox envelope, logged with the
 *       missing header: it goes to the queue's dead-letter exchange if one is configured, else is dropped.</li>
 * </ul>
 * Deliveries of a channel are handled one at a time, in queue order, on the client's consumer thread:
 * one {@code RabbitConsumer} per queue keeps the order of the queue. The connection comes from the given
 * factory as is; its automatic recovery (on by default in the client) resumes consuming after a
 * connection loss, and deliveries that were not acknowledged come again (the inbox absorbs them).
 * <pre>{@code
 * EnvelopeConsumer inventory = new EnvelopeConsumer(dataSource, postbox.inbox(), "inventory",
 *         (c, e) -> reserveStock(c, e.aggregateId()));
 * try (RabbitConsumer consumer = RabbitConsumer.builder(factory, "inventory.orders", inventory).start()) { ... }
 * }</pre>
 */
public final class RabbitConsumer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RabbitConsumer.class);

    private final String queue;
    private final EnvelopeConsumer consumer;
    private final Duration requeueDelay;
    private final Connection connection;
    private final Channel channel;
    private final LongAdder acknowledged = new LongAdder();
    private final LongAdder requeued = new LongAdder();
    private final LongAdder rejected = new LongAdder();

    private RabbitConsumer(Builder b) throws IOException, TimeoutException {
        this.queue = b.queue;
        this.consumer = b.consumer;
        this.requeueDelay = b.requeueDelay;
        this.connection = b.factory.newConnection("postbox-consumer-" + b.consumer.consumer());
        try {
            this.channel = connection.createChannel();
            channel.basicQos(b.prefetch);
            channel.basicConsume(queue, false, new Deliveries(channel));
        } catch (IOException | RuntimeException e) {
            closeQuietly();
            throw e;
        }
    }

    /** A builder for a consumer of {@code queue} (which must exist) into {@code consumer}, connecting with {@code factory}. */
    public static Builder builder(ConnectionFactory factory, String queue, EnvelopeConsumer consumer) {
        return new Builder(factory, queue, consumer);
    }

    /** The queue this consumer reads. */
    public String queue() {
        return queue;
    }

    private final class Deliveries extends DefaultConsumer {
        Deliveries(Channel channel) {
            super(channel);
        }

        @Override
        public void handleDelivery(String consumerTag, com.rabbitmq.client.Envelope delivery, AMQP.BasicProperties properties,
                                   byte[] body) throws IOException {
            long tag = delivery.getDeliveryTag();
            Envelope envelope;
            try {
                envelope = AmqpEnvelopes.envelope(properties, body);
            } catch (ValidationException e) {
                log.warn("rejecting a delivery from queue '{}' (message-id {}, exchange '{}', routing key '{}'): "
                                + "not a Postbox envelope: {}", queue, properties.getMessageId(), delivery.getExchange(),
                        delivery.getRoutingKey(), e.getMessage());
                getChannel().basicReject(tag, false);
                rejected.increment();
                return;
            }
            try {
                consumer.accept(envelope);
            } catch (RuntimeException e) {
                log.warn("consumer '{}' failed on event {} from queue '{}'; requeueing it after {}: {}",
                        consumer.consumer(), envelope.eventNo(), queue, requeueDelay, e.toString());
                pause();
                getChannel().basicNack(tag, false, true);
                requeued.increment();
                return;
            }
            getChannel().basicAck(tag, false);
            acknowledged.increment();
        }
    }

    /** Deliveries acknowledged so far (the work ran, or was a duplicate). */
    public long acknowledged() {
        return acknowledged.sum();
    }

    /** Deliveries requeued so far because the handler or the database failed. */
    public long requeued() {
        return requeued.sum();
    }

    /** Deliveries rejected so far as not being Postbox envelopes. */
    public long rejected() {
        return rejected.sum();
    }

    private void pause() {
        try {
            Thread.sleep(requeueDelay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops consuming and closes the connection; unacknowledged deliveries go back to the queue. */
    @Override
    public void close() {
        closeQuietly();
    }

    private void closeQuietly() {
        try {
            if (connection.isOpen()) {
                connection.close();
            }
        } catch (IOException | RuntimeException e) {
            log.debug("closing the consumer connection of queue '{}': {}", queue, e.getMessage());
        }
    }

    /** Settings of a {@link RabbitConsumer}, validated by {@link #start()}; not thread-safe. */
    public static final class Builder {
        private final ConnectionFactory factory;
        private final String queue;
        private final EnvelopeConsumer consumer;
        private int prefetch = RabbitDefaults.PREFETCH;
        private Duration requeueDelay = RabbitDefaults.REQUEUE_DELAY;

        private Builder(ConnectionFactory factory, String queue, EnvelopeConsumer consumer) {
            this.factory = factory;
            this.queue = queue;
            this.consumer = consumer;
        }

        /** Unacknowledged deliveries held at once, 1..65535; default 100. */
        public Builder prefetch(int prefetch) {
            this.prefetch = prefetch;
            return this;
        }

        /** Pause before a failed delivery is requeued, 0..1 minute; default 500 ms. */
        public Builder requeueDelay(Duration delay) {
            this.requeueDelay = delay;
            return this;
        }

        /**
         * Validates the settings, connects and starts consuming.
         *
         * @throws ValidationException a setting is invalid, naming it
         * @throws IOException         the broker is unreachable or the queue does not exist (404)
         */
        public RabbitConsumer start() throws IOException, TimeoutException {
            if (factory == null) {
                throw new ValidationException("rabbitmq.connectionFactory", "is required");
            }
            if (queue == null || queue.isBlank()) {
                throw new ValidationException("rabbitmq.queue", "must not be blank");
            }
            if (consumer == null) {
                throw new ValidationException("rabbitmq.consumer", "is required (an EnvelopeConsumer)");
            }
            if (prefetch < 1 || prefetch > 65_535) {
                throw new ValidationException("rabbitmq.prefetch", "must be 1..65535 (was " + prefetch + ")");
            }
            if (requeueDelay == null || requeueDelay.isNegative() || requeueDelay.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new ValidationException("rabbitmq.requeueDelay", "must be 0..1 minute (was " + requeueDelay + ")");
            }
            return new RabbitConsumer(this);
        }
    }
}
