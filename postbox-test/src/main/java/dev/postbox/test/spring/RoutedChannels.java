package dev.postbox.test.spring;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.relay.EventBus;
import dev.postbox.relay.Routes;
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
 * The target of the {@link PostboxTest}'s recording publisher. With {@link PostboxTest.PublishTo#EVENT_BUS} an event on
 * a channel routed to an in-process {@link EventBus} goes to that bus (its subscribers are the application's own
 * consumers) and every other event is acknowledged, as a broker would; with {@link PostboxTest.PublishTo#TRANSPORTS}
 * every event goes where the starter's routes send it (the real brokers; an event on an unrouted channel goes DEAD as
 * in production). The routes are read at the first publish, when the context is complete.
 */
final class RoutedChannels implements Publisher {

    private final ObjectProvider<PublisherRoute> routes;
    private final PostboxTest.PublishTo publishTo;
    private volatile Map<String, EventBus> buses;
    private volatile Routes all;

    RoutedChannels(ObjectProvider<PublisherRoute> routes, PostboxTest.PublishTo publishTo) {
        this.routes = routes;
        this.publishTo = publishTo;
    }

    @Override
    public Object orderLane(OutboxRecord event) {
        return publishTo == PostboxTest.PublishTo.TRANSPORTS ? all().orderLane(event) : Publisher.super.orderLane(event);
    }

    @Override
    public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
        if (publishTo == PostboxTest.PublishTo.TRANSPORTS) {
            return all().publish(records);
        }
        Map<String, EventBus> byChannel = buses();
        List<CompletionStage<PublishResult>> out = new ArrayList<>(records.size());
        for (OutboxRecord r : records) {
            EventBus bus = byChannel.get(r.channel());
            out.add(bus == null ? CompletableFuture.completedFuture(PublishResult.published())
                    : bus.publish(List.of(r)).get(0));
        }
        return out;
    }

    private Routes all() {
        Routes r = all;
        if (r == null) {
            Routes.Builder b = Routes.builder();
            for (PublisherRoute route : routes.orderedStream().toList()) {
                for (String channel : route.channels()) {
                    b.channel(channel, route.publisher());
                }
            }
            r = b.build();
            all = r;
        }
        return r;
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
