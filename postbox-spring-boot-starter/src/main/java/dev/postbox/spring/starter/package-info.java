/**
 * The Postbox Spring Boot starter holds no code: it brings postbox-core and the auto-configuration
 * ({@link dev.postbox.spring.autoconfigure.PostboxAutoConfiguration}), which give the application a
 * {@link dev.postbox.Postbox}, the transaction-joining {@link dev.postbox.spring.TransactionalOutbox} and
 * {@link dev.postbox.spring.TransactionalInbox}, the in-process {@link dev.postbox.relay.EventBus} for channel
 * {@code EVENT_BUS}, the relay, the message-event worker and the application's compensation jobs. Add a transport
 * module (postbox-kafka, postbox-rabbitmq, postbox-nats, postbox-http) and its connection property to publish
 * beyond the event bus. This package exists so that the starter's sources jar documents that.
 */
package dev.postbox.spring.starter;
