package dev.postbox.spring.autoconfigure.listener;

import dev.postbox.inbox.ConsumerTransactions;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.inbox.Inbox;
import dev.postbox.spring.PostboxListener.Transport;
import dev.postbox.spring.PostboxListenerObserver;
import dev.postbox.spring.Upcaster;
import dev.postbox.spring.autoconfigure.RelayLifecycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.PropertyResolver;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The listener containers of the application's {@link dev.postbox.spring.PostboxListener} methods: at start (after
 * the context is refreshed, before the relay) it checks every method and group, then starts one subscription per
 * consumer and transport; it stops them after the relay and before the data source closes. A listener that cannot
 * be served (a bad signature, a transport that is not configured, two methods for one event type) fails the
 * start-up with a message naming it. Its state is in the {@code postbox} health details.
 */
public final class PostboxListeners implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PostboxListeners.class);

    /** Starts before, and stops after, the relay: no event reaches the event bus before its listeners subscribed. */
    public static final int PHASE = RelayLifecycle.PHASE - 16;

    private final dev.postbox.tracing.PostboxTracing tracing;
    private final ListenerRegistrar registrar;
    private final Map<Transport, ListenerTransport> transports = new EnumMap<>(Transport.class);
    private final List<Upcaster> upcasterBeans;
    private final PayloadMapper mapper;
    private final ConsumerTransactions transactions;
    private final Inbox inbox;
    private final PropertyResolver env;
    private final List<PostboxListenerObserver> observers;
    private final List<ListenerGroup> groups = new ArrayList<>();
    private final List<AutoCloseable> started = new ArrayList<>();
    private boolean running;

    PostboxListeners(ListenerRegistrar registrar, List<ListenerTransport> transports, List<Upcaster> upcasterBeans,
                     PayloadMapper mapper, ConsumerTransactions transactions, Inbox inbox,
                     List<PostboxListenerObserver> observers, PropertyResolver env) {
        this(registrar, transports, upcasterBeans, mapper, transactions, inbox, observers, env,
                dev.postbox.tracing.PostboxTracing.NOOP);
    }

    PostboxListeners(ListenerRegistrar registrar, List<ListenerTransport> transports, List<Upcaster> upcasterBeans,
                     PayloadMapper mapper, ConsumerTransactions transactions, Inbox inbox,
                     List<PostboxListenerObserver> observers, PropertyResolver env,
                     dev.postbox.tracing.PostboxTracing tracing) {
        this.tracing = tracing;
        this.registrar = registrar;
        this.env = env;
        transports.forEach(t -> this.transports.put(t.transport(), t));
        this.upcasterBeans = List.copyOf(upcasterBeans);
        this.mapper = mapper;
        this.transactions = transactions;
        this.inbox = inbox;
        this.observers = List.copyOf(observers);
    }

    /**
     * The consumers of the application's {@code @PostboxListener} methods found so far (all of them once the context's
     * singletons exist), in the order found: the meters register their inbox counters at 0 for each.
     */
    public List<String> consumers() {
        return registrar.listeners().stream()
                .map(f -> ListenerSpec.of(f.annotation(), env, f.declared().getName()).consumer()).distinct().toList();
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        List<ListenerGroup> built = build();
        try {
            for (ListenerGroup g : built) {
                EnvelopeConsumer consumer = new EnvelopeConsumer(transactions, inbox, g.consumer(), g).observed(g.counting())
                        .traced(tracing, g.tracedSystem(), g.tracedDestination());
                ListenerTransport transport = transports.get(g.transport());
                AutoCloseable subscription = transport.start(g, consumer);
                started.add(subscription);
                g.alive(() -> transport.alive(subscription));
                g.running(true);
                log.info("Postbox listener {} started: {} ({} payloads)", g.describe(),
                        g.methods().stream().map(ListenerMethod::name).toList(), mapper.describe());
            }
        } catch (Exception e) {
            closeStarted();
            throw e instanceof RuntimeException re ? re : new IllegalStateException("starting the Postbox listeners: " + e, e);
        }
        groups.clear();
        groups.addAll(built);
        // the delivery meters of every group at 0 before its first delivery (dashboards see them from the start)
        built.forEach(g -> observers.stream().filter(MeterOutcomes.class::isInstance)
                .forEach(o -> ((MeterOutcomes) o).register(g.consumer(), g.transport())));
        running = true;
    }

    /** Checks every listener and groups them by consumer and transport; nothing is started. */
    private List<ListenerGroup> build() {
        List<Upcaster> all = new ArrayList<>(upcasterBeans);
        all.addAll(registrar.upcasterMethods());
        Upcasters upcasters = new Upcasters(all);
        Map<String, List<ListenerMethod>> byKey = new LinkedHashMap<>();
        Map<String, Transport> transportOf = new LinkedHashMap<>();
        for (ListenerRegistrar.Found f : registrar.listeners()) {
            ListenerMethod m = new ListenerMethod(f.bean(), f.invocable(), f.declared(), f.annotation(), mapper, env);
            String key = m.spec().transport() + "\u0000" + m.spec().consumer();
            byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(m);
            transportOf.put(key, m.spec().transport());
        }
        List<ListenerGroup> built = new ArrayList<>();
        byKey.forEach((key, methods) -> {
            Transport t = transportOf.get(key);
            ListenerGroup g = new ListenerGroup(t, methods.get(0).spec().consumer(), methods, upcasters, mapper);
            ListenerTransport transport = transports.get(t);
            if (transport == null) {
                throw new IllegalStateException("@PostboxListener " + g.describe() + " (" + methods.get(0).name() + "): "
                        + missing(t));
            }
            transport.check(g);
            observers.forEach(g::addObserver);
            built.add(g);
        });
        return built;
    }

    private static String missing(Transport t) {
        return switch (t) {
            case EVENT_BUS -> "the in-process event bus is off (postbox.event-bus.enabled=false)";
            case KAFKA -> "add dev.postbox:postbox-kafka to the class path";
            case RABBITMQ -> "add dev.postbox:postbox-rabbitmq to the class path";
            case NATS -> "add dev.postbox:postbox-nats to the class path";
            case HTTP -> "add dev.postbox:postbox-http to the class path and run a servlet web application";
        };
    }

    @Override
    public synchronized void stop() {
        if (!running) {
            return;
        }
        closeStarted();
        groups.forEach(g -> g.running(false));
        running = false;
    }

    private void closeStarted() {
        List<AutoCloseable> reverse = new ArrayList<>(started);
        Collections.reverse(reverse);
        for (AutoCloseable c : reverse) {
            try {
                c.close();
            } catch (Exception e) {
                log.warn("Stopping a Postbox listener failed: {}", e.toString());
            }
        }
        started.clear();
    }

    @Override
    public synchronized boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** One entry per consumer and transport: consumer, transport, running, methods, ran, duplicates, failed, last failure. */
    public synchronized List<Map<String, Object>> details() {
        return groups.stream().map(ListenerGroup::details).toList();
    }

    /** The consumers (as "consumer on TRANSPORT") that should run but do not; empty when all run or none was started. */
    public synchronized List<String> notRunning() {
        if (!running) {
            return List.of();
        }
        return groups.stream().filter(g -> !g.running()).map(ListenerGroup::describe).toList();
    }
}
