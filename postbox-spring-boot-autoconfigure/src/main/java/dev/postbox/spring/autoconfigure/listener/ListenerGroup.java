package dev.postbox.spring.autoconfigure.listener;

import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.spi.Envelope;
import dev.postbox.spring.PostboxListener.Transport;
import dev.postbox.spring.PostboxListenerObserver;
import dev.postbox.spring.PostboxListenerObserver.Outcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The {@link dev.postbox.spring.PostboxListener} methods of one consumer on one transport: one consume log, one subscription, and a
 * dispatch of each event to the method that names its type (else the one naming none). Counts what happened to
 * the deliveries for health and meters.
 */
final class ListenerGroup implements EnvelopeConsumer.Handler {

    private static final Logger log = LoggerFactory.getLogger(ListenerGroup.class);

    private final Transport transport;
    private final String consumer;
    private final List<ListenerMethod> methods;
    private final Map<String, ListenerMethod> byType = new HashMap<>();
    private final ListenerMethod catchAll;
    private final Upcasters upcasters;
    private final PayloadMapper mapper;
    private final Set<String> topics = new LinkedHashSet<>();
    private final String queue;
    private final String bindingKey;
    private final String stream;
    private final String subject;
    private final String path;
    private final Map<Outcome, LongAdder> counts = new LinkedHashMap<>();
    private final AtomicReference<String> lastFailure = new AtomicReference<>();
    private final List<PostboxListenerObserver> observers = new ArrayList<>();
    private volatile boolean running;
    private volatile java.util.function.BooleanSupplier alive = () -> true;
    private volatile Instant lastDelivery;

    ListenerGroup(Transport transport, String consumer, List<ListenerMethod> methods, Upcasters upcasters, PayloadMapper mapper) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.consumer = Objects.requireNonNull(consumer, "consumer");
        this.methods = List.copyOf(methods);
        this.upcasters = upcasters;
        this.mapper = mapper;
        ListenerMethod any = null;
        for (ListenerMethod m : methods) {
            if (m.eventTypes().isEmpty()) {
                if (any != null) {
                    throw new IllegalStateException(describe() + ": " + any.name() + " and " + m.name() + " both take every"
                            + " event type; name the types each takes in eventTypes");
                }
                any = m;
            }
            for (String t : m.eventTypes()) {
                ListenerMethod before = byType.putIfAbsent(t, m);
                if (before != null && before != m) {
                    throw new IllegalStateException(describe() + ": " + before.name() + " and " + m.name()
                            + " both take event type " + t + "; one method per type and consumer");
                }
            }
            topics.addAll(m.spec().topics());
        }
        this.catchAll = any;
        this.queue = same(ListenerSpec::queue, "queue");
        this.bindingKey = same(ListenerSpec::bindingKey, "bindingKey");
        this.stream = same(ListenerSpec::stream, "stream");
        this.subject = same(ListenerSpec::subject, "subject");
        this.path = same(ListenerSpec::path, "path");
        for (String t : topics) {
            if (t == null || t.isBlank()) {
                throw new IllegalStateException(describe() + ": a blank topic in topics");
            }
        }
        for (Outcome o : Outcome.values()) {
            counts.put(o, new LongAdder());
        }
    }

    private String same(java.util.function.Function<ListenerSpec, String> attribute, String name) {
        String value = null;
        ListenerMethod first = null;
        for (ListenerMethod m : methods) {
            String v = attribute.apply(m.spec());
            if (first == null) {
                first = m;
                value = v;
            } else if (!v.equals(value)) {
                throw new IllegalStateException(describe() + ": " + first.name() + " and " + m.name() + " set "
                        + name + " to '" + value + "' and '" + v + "'; the methods of one consumer and transport share"
                        + " one subscription, so set it alike (or name the consumers apart)");
            }
        }
        return value;
    }

    /** "consumer 'inventory' on KAFKA", for errors and logs. */
    String describe() {
        return "consumer '" + consumer + "' on " + transport;
    }

    Transport transport() {
        return transport;
    }

    /** {@code messaging.system} of its process spans. */
    String tracedSystem() {
        return switch (transport) {
            case KAFKA -> "kafka";
            case RABBITMQ -> "rabbitmq";
            case NATS -> "nats";
            case HTTP -> "http";
            default -> dev.postbox.tracing.SpanRequest.POSTBOX_SYSTEM;
        };
    }

    /** {@code messaging.destination.name} of its process spans: the queue, subject, path, or its topics. */
    String tracedDestination() {
        String one = switch (transport) {
            case RABBITMQ -> queue;
            case NATS -> subject != null ? subject : stream;
            case HTTP -> path;
            default -> null;
        };
        return one != null ? one : topics.isEmpty() ? null : String.join(",", topics);
    }

    String consumer() {
        return consumer;
    }

    List<ListenerMethod> methods() {
        return methods;
    }

    /** The union of its methods' topics. */
    List<String> topics() {
        return List.copyOf(topics);
    }

    String queue() {
        return queue;
    }

    String bindingKey() {
        return bindingKey;
    }

    String stream() {
        return stream;
    }

    String subject() {
        return subject;
    }

    String path() {
        return path;
    }

    void addObserver(PostboxListenerObserver o) {
        observers.add(o);
    }

    /** The method that takes {@code eventType}, or null: the event is acknowledged with nothing run. */
    ListenerMethod methodFor(String eventType) {
        ListenerMethod m = byType.get(eventType);
        return m != null ? m : catchAll;
    }

    @Override
    public void handle(Connection connection, Envelope envelope) throws Exception {
        ListenerMethod m = methodFor(envelope.eventType());
        if (m == null) {
            return;
        }
        m.invoke(upcasters.toAccepted(envelope, m, consumer), mapper);
    }

    /**
     * Counts each delivery's outcome (RAN or DUPLICATE when its transaction committed, FAILED when it threw) and tells
     * the observers.
     */
    EnvelopeConsumer.Observer counting() {
        return (envelope, result, failure) -> {
            Outcome o = failure != null ? Outcome.FAILED : result.duplicate() ? Outcome.DUPLICATE : Outcome.RAN;
            if (failure != null) {
                lastFailure.set("consumer '" + consumer + "' for event " + envelope.eventNo() + ": " + failure);
            }
            counts.get(o).increment();
            lastDelivery = Instant.now();
            PostboxListenerObserver.Delivery d = new PostboxListenerObserver.Delivery(consumer, transport, envelope, o, failure);
            for (PostboxListenerObserver l : observers) {
                try {
                    l.delivered(d);
                } catch (RuntimeException e) {
                    log.warn("Postbox listener {}: an observer failed on event {}: {}", describe(), envelope.eventNo(),
                            e.toString());
                }
            }
        };
    }

    long count(Outcome o) {
        return counts.get(o).sum();
    }

    boolean running() {
        return running && alive.getAsBoolean();
    }

    void running(boolean running) {
        this.running = running;
    }

    /** How to tell whether the started subscription still receives. */
    void alive(java.util.function.BooleanSupplier alive) {
        this.alive = alive;
    }

    /** The health details of this group. */
    Map<String, Object> details() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("consumer", consumer);
        d.put("transport", transport.name());
        d.put("running", running());
        d.put("methods", methods.stream().map(ListenerMethod::name).toList());
        d.put("ran", count(Outcome.RAN));
        d.put("duplicates", count(Outcome.DUPLICATE));
        d.put("failed", count(Outcome.FAILED));
        if (lastDelivery != null) {
            d.put("lastDelivery", lastDelivery.toString());
        }
        String f = lastFailure.get();
        if (f != null) {
            d.put("lastFailure", f);
        }
        return d;
    }
}
