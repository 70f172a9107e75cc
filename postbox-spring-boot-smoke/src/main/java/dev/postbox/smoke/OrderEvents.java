package dev.postbox.smoke;

import dev.postbox.relay.EventBus;
import org.springframework.stereotype.Component;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Subscribes to the order events the relay hands to the in-process event bus. */
@Component
public class OrderEvents {

    private final Set<String> received = ConcurrentHashMap.newKeySet();

    public OrderEvents(EventBus bus) {
        bus.subscribe(Orders.TOPIC, event -> received.add(event.eventNo()));
    }

    /** The event_no of every event received. */
    public Set<String> received() {
        return received;
    }
}
