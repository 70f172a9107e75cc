package dev.postbox.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a Spring bean method as an idempotent consumer of outbox events: the starter runs it once per
 * {@code event_no} for {@link #consumer()}, inside a Spring transaction on the application's
 * {@code DataSource} together with the consume-log row (so JdbcTemplate, JdbcClient and JPA code in the method
 * join it and commit with it, or roll back with it), and acknowledges the delivery only after that commit.
 * <pre>{@code
 * @Component
 * class Inventory {
 *     @PostboxListener(consumer = "inventory", topics = "order.event", eventTypes = "ORDER_CREATED")
 *     void onOrderCreated(OrderCreated order, Envelope envelope) {
 *         jdbc.sql("UPDATE stock SET reserved = reserved + 1 WHERE sku = ?").param(order.sku()).update();
 *     }
 * }
 * }</pre>
 * <b>Parameters</b>: at most one payload parameter (the event's JSON payload mapped by the application's Jackson
 * {@code ObjectMapper} into the declared type; {@code String} takes the JSON as it is) and at most one
 * {@link dev.postbox.spi.Envelope} (the event's number, type, version, aggregate, trace and headers).
 * <p>
 * <b>Failures</b>: when the method throws, nothing of the delivery is committed and the transport retries as it
 * does for any consumer: the event bus fails the event (the relay retries it with its backoff, DEAD once the
 * retries are used up), Kafka rewinds the partition, RabbitMQ requeues, NATS naks, HTTP answers 500.
 * <p>
 * <b>Several methods, one consumer</b>: methods with the same {@link #consumer()} and {@link #transport()} share one
 * consume log and one subscription (one Kafka group, one queue, one durable), and each event goes to the method
 * that names its type (or the one naming none); two methods naming the same type fail the start-up. An event
 * that no method of the consumer takes is acknowledged without running anything.
 * <p>
 * <b>Versions</b>: an event whose {@code event_version} is not in {@link #versions()} is upcast by the
 * {@link PostboxUpcaster} methods and {@link Upcaster} beans registered for its type until its version is
 * accepted; without a path it is refused with a reason naming the consumer, the versions accepted and the
 * missing upcaster (and retried like a failure, so deploying the upcaster lets it through).
 * <p>
 * Every string attribute takes {@code ${...}} placeholders, resolved against the environment at start-up
 * (e.g. {@code topics = "${orders.topic}"}).
 * <p>
 * Listener containers start after the application context is refreshed and before the relay, and stop after
 * the relay and before the data source closes; their state is in the {@code postbox} health details and in the
 * {@code postbox.listener.deliveries} meter.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface PostboxListener {

    /** Where the events come from. */
    enum Transport {
        /** The starter's in-process {@link dev.postbox.relay.EventBus}; {@link #topics()} are its topics (none: all). */
        EVENT_BUS,
        /** Kafka: {@link #topics()} are the Kafka topics (required), the consumer group is {@link #consumer()}. */
        KAFKA,
        /** RabbitMQ: {@link #queue()} is consumed; with {@link #topics()} it is declared and bound to those exchanges. */
        RABBITMQ,
        /** NATS JetStream: {@link #stream()} (required) with the durable consumer {@link #consumer()}, filtered by {@link #subject()}. */
        NATS,
        /** HTTP webhooks: the starter receives {@code POST} at {@link #path()} (required), signed with {@code postbox.http.secret}. */
        HTTP
    }

    /** The consumer's name in the consume log (and its Kafka group, NATS durable): stable, at most 128 characters. */
    String consumer();

    /** The transport; default the in-process event bus. */
    Transport transport() default Transport.EVENT_BUS;

    /** Topics: event-bus topics, Kafka topics, or the RabbitMQ exchanges to bind {@link #queue()} to. */
    String[] topics() default {};

    /** The event types this method handles; none: every type no other method of the consumer names. */
    String[] eventTypes() default {};

    /** The {@code event_version}s this method accepts; none: every version. */
    int[] versions() default {};

    /** RabbitMQ: the queue to consume (required for {@link Transport#RABBITMQ}). */
    String queue() default "";

    /** RabbitMQ: the binding key of {@link #queue()} to each exchange of {@link #topics()}; default {@code #} (all). */
    String bindingKey() default "#";

    /** NATS: the JetStream stream (required for {@link Transport#NATS}). */
    String stream() default "";

    /** NATS: the filter subject (wildcards allowed); default every subject of the stream. */
    String subject() default "";

    /** HTTP: the path the starter receives webhooks on, e.g. {@code /webhooks/orders} (required for {@link Transport#HTTP}). */
    String path() default "";
}
