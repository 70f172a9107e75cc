package dev.postbox.spring.autoconfigure.listener;

import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.nats.NatsPublisher;
import dev.postbox.nats.NatsSubscriber;
import dev.postbox.spring.PostboxListener.Transport;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

import java.util.List;

/**
 * NATS JetStream: one {@link NatsSubscriber} per group on its stream, with the durable consumer named after the
 * consumer and the group's filter subject, on the connection of the starter's {@link NatsPublisher} when there is
 * one, else on a connection of its own to {@code postbox.nats.url} (closed with the subscription).
 */
final class NatsListenerTransport implements ListenerTransport {

    private final ObjectProvider<NatsPublisher> publisher;
    private final Environment env;

    NatsListenerTransport(ObjectProvider<NatsPublisher> publisher, Environment env) {
        this.publisher = publisher;
        this.env = env;
    }

    @Override
    public Transport transport() {
        return Transport.NATS;
    }

    private List<String> urls() {
        return Binder.get(env).bind("postbox.nats.url", Bindable.listOf(String.class)).orElse(List.of()).stream()
                .filter(s -> s != null && !s.isBlank()).map(String::trim).toList();
    }

    @Override
    public void check(ListenerGroup group) {
        if (group.stream().isBlank()) {
            throw new IllegalStateException("@PostboxListener " + group.describe() + " names no stream: set stream to the"
                    + " JetStream stream to read, e.g. stream = \"ORDERS\"");
        }
        if (publisher.getIfAvailable() == null && urls().isEmpty()) {
            throw new IllegalStateException("@PostboxListener " + group.describe() + " needs a NATS server: set"
                    + " postbox.nats.url");
        }
    }

    @Override
    public AutoCloseable start(ListenerGroup group, EnvelopeConsumer consumer) throws Exception {
        NatsPublisher shared = publisher.getIfAvailable();
        Connection connection = shared != null ? shared.connection()
                : Nats.connect(Options.builder().servers(urls().toArray(String[]::new))
                        .connectionName("postbox-listener-" + group.consumer()).maxReconnects(-1).build());
        NatsSubscriber.Builder b = NatsSubscriber.builder(connection, consumer).stream(group.stream()).durable(group.consumer());
        if (!group.subject().isBlank()) {
            b.filterSubject(group.subject());
        }
        NatsSubscriber subscriber;
        try {
            subscriber = b.build().start();
        } catch (RuntimeException e) {
            if (shared == null) {
                connection.close();
            }
            throw e;
        }
        return () -> {
            subscriber.close();
            if (shared == null) {
                connection.close();
            }
        };
    }
}
