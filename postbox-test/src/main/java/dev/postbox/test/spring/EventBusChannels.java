package dev.postbox.test.spring;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.relay.EventBus;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.spring.PublisherRoute;
import org.springframework.beans.factory.ObjectProvider;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The target of the {@link PostboxTest}'s recording publisher: an event on a channel routed to an in-process
 * {@link EventBus} goes to that bus (its subscribers are the application's own consumers); every other event is
 * acknowledged, as a broker would. The routes are read at the first publish, when the context is complete.
 */
final class EventBusChannels implements Publisher {

    private final ObjectProvider<PublisherRoute> routes;
    private volatile Map<String, EventBus> buses;

    EventBusChannels(ObjectProvider<PublisherRoute> routes) {
        this.routes = routes;
    }

    @Override
    public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
        Map<String, EventBus> byChannel = buses();
        List<CompletionStage<PublishResult>> out = new ArrayList<>(records.size());
        for (OutboxRecord r : records) {
            EventBus bus = byChannel.get(r.channel());
            out.add(bus == null ? CompletableFuture.completedFuture(PublishResult.published())
                    : bus.publish(List.of(r)).get(0));
        }
        return out;
    }

    private Map<String, EventBus> buses() {
        Map<String, EventBus> b = buses;
        if (b == null) {
            b = new HashMap<>();
            for (PublisherRoute route : routes.orderedStream().toList()) {
                if (route.publisher() instanceof EventBus bus) {
                    for (String channel : route.channels()) {
                        b.put(channel, bus);
                    }
                }
            }
            buses = b;
        }
        return b;
    }
}
