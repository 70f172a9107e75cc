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
        MeterRegistry r = registry.getIfUnique();
        if (r == null) {
            return;
        }
        counters.computeIfAbsent(d.transport() + "\u0000" + d.consumer() + "\u0000" + d.outcome(), k ->
                Counter.builder(DELIVERIES).description("Deliveries to @PostboxListener methods, by outcome")
                        .tag("consumer", d.consumer()).tag("transport", d.transport().name())
                        .tag("outcome", d.outcome().name()).register(r)).increment();
    }
}
