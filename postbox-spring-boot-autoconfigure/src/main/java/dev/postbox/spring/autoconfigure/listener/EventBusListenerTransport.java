package dev.postbox.spring.autoconfigure.listener;

import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.relay.EventBus;
import dev.postbox.spi.Envelope;
import dev.postbox.spring.PostboxListener.Transport;

import java.util.List;
import java.util.function.Consumer;

/**
 * The in-process event bus: a subscriber per topic (every topic when the group names none) that runs the delivery
 * on the relay's thread; when it throws, the event fails and the relay retries it.
 */
final class EventBusListenerTransport implements ListenerTransport {

    private final EventBus bus;

    EventBusListenerTransport(EventBus bus) {
        this.bus = bus;
    }

    @Override
    public Transport transport() {
        return Transport.EVENT_BUS;
    }

    @Override
    public void check(ListenerGroup group) {
        if (!group.queue().isEmpty() || !group.stream().isEmpty() || !group.subject().isEmpty() || !group.path().isEmpty()) {
            throw new IllegalStateException("@PostboxListener " + group.describe() + " sets queue, stream, subject or path,"
                    + " which the event bus does not use: set transport to RABBITMQ, NATS or HTTP, or remove them");
        }
    }

    @Override
    public AutoCloseable start(ListenerGroup group, EnvelopeConsumer consumer) {
        List<String> topics = group.topics().isEmpty() ? List.of(EventBus.ALL_TOPICS) : group.topics();
        Consumer<OutboxRecord> subscriber = r -> consumer.accept(Envelope.of(r));
        for (String t : topics) {
            bus.subscribe(t, subscriber);
        }
        return () -> topics.forEach(t -> bus.unsubscribe(t, subscriber));
    }
}
