/**
 * Auto-configuration of the transport modules on the class path: Kafka ({@code postbox.kafka.*}), RabbitMQ
 * ({@code postbox.rabbitmq.*}), NATS JetStream ({@code postbox.nats.*}) and HTTP webhooks
 * ({@code postbox.http.*}). Each gives the relay a publisher and a {@link dev.postbox.spring.PublisherRoute}
 * for its channels, and only when its connection property is set.
 */
package dev.postbox.spring.autoconfigure.transport;
