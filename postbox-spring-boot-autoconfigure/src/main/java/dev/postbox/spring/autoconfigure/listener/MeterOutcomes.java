package dev.postbox.spring.autoconfigure.listener;

import dev.postbox.spring.PostboxListenerObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code postbox.listener.deliveries{consumer, transport, outcome}}: every delivery to a listener, RAN, DUPLICATE or
 * FAILED. The registry is looked up at the first delivery (it is created after the listeners' configuration).
 */
final class MeterOutcomes implements PostboxListenerObserver {

    static final String DELIVERIES = "postbox.listener.deliveries";

    private final ObjectProvider<MeterRegistry> registry;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    MeterOutcomes(ObjectProvider<MeterRegistry> registry) {
        this.registry = registry;
    }

    @Override
    public void delivered(Delivery d) {
        Counter c = counter(d.consumer(), d.transport(), d.outcome());
        if (c != null) {
            c.increment();
        }
    }

    /** Registers the counters of {@code consumer} on {@code transport} at 0 (when there is a registry). */
    void register(String consumer, dev.postbox.spring.PostboxListener.Transport transport) {
        for (Outcome o : Outcome.values()) {
            counter(consumer, transport, o);
        }
    }

    private Counter counter(String consumer, dev.postbox.spring.PostboxListener.Transport transport, Outcome outcome) {
        MeterRegistry r = registry.getIfUnique();
        if (r == null) {
            return null;
        }
        return counters.computeIfAbsent(transport + "\u0000" + consumer + "\u0000" + outcome, k ->
                Counter.builder(DELIVERIES).description("Deliveries to @PostboxListener methods, by outcome")
                        .tag("consumer", consumer).tag("transport", transport.name())
                        .tag("outcome", outcome.name()).register(r));
    }
}
