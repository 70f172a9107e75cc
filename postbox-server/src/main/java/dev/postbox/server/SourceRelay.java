package dev.postbox.server;

import dev.postbox.Postbox;
import dev.postbox.console.BasicAuthenticator;
import dev.postbox.console.ConsoleApi;
import dev.postbox.micrometer.BacklogMonitor;
import dev.postbox.micrometer.PostboxMetrics;
import dev.postbox.operations.Operator;
import dev.postbox.operations.Role;
import dev.postbox.query.Backlog;
import dev.postbox.jdbc.SchemaState;
import dev.postbox.relay.Relay;
import dev.postbox.relay.Routes;
import dev.postbox.server.config.ServerConfig;
import dev.postbox.tracing.PostboxTracing;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One bulkhead of the server (a source, or one tenant's table set of a source) at run time: its own Postbox on its
 * own database (traced by the server's tracer), its own relay (with its own pool), its meters tagged {@code source}
 * and its console. A database that cannot be reached (at start or later, before the relay ran) leaves it WAITING and
 * tried again every {@link #reconnect} (5 s) without disturbing the other bulkheads; once running, the relay rides out
 * outages itself.
 * Pause closes the relay (it stops claiming, finishes or gives back what it holds, releases its leases), resume
 * starts a new one, drain relays until nothing is left to publish and then pauses. Thread-safe.
 */
final class SourceRelay implements AutoCloseable {

    /** How often a bulkhead whose database could not be reached is tried again (tests shorten it). */
    static volatile Duration reconnect = Duration.ofSeconds(5);
    /** How often the backlog gauges (and a drain's progress) are read. */
    static final Duration BACKLOG_INTERVAL = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(SourceRelay.class);

    /** A bulkhead's state, as health and the API show it. */
    enum State { WAITING, RUNNING, DRAINING, PAUSED, STOPPED }

    private final ServerConfig.Bulkhead bulkhead;
    private final String key;
    private final Routes routes;
    /** The destination of "channel\0topic" (a topic route) and "channel\0" (a channel route): the meters' tag. */
    private final Map<String, String> destinationOf;
    private final Collection<String> channels;
    private final String instanceId;
    private final ServerConfig.Console consoleConfig;
    private final MeterRegistry registry;
    private final ScheduledExecutorService timer;
    private final PostboxTracing tracing;

    private volatile State state = State.WAITING;
    private volatile String lastError;
    private volatile Instant since = Instant.now();
    private Postbox postbox;
    private volatile Relay relay;
    private BacklogMonitor monitor;
    private PostboxMetrics metrics;
    private volatile ConsoleApi console;
    private ScheduledFuture<?> pending;

    SourceRelay(ServerConfig.Bulkhead bulkhead, Routes routes, Collection<String> channels, String instanceId,
                ServerConfig.Console consoleConfig, MeterRegistry registry, ScheduledExecutorService timer,
                Map<String, String> destinationOf, PostboxTracing tracing) {
        this.destinationOf = Map.copyOf(destinationOf);
        this.tracing = tracing;
        this.bulkhead = bulkhead;
        ServerConfig.Source source = bulkhead.source();
        this.key = "sources." + source.name() + (source.tenants().isEmpty() ? ""
                : ".tenants." + tenant(bulkhead));
        this.routes = routes;
        this.channels = List.copyOf(channels);
        this.instanceId = instanceId;
        this.consoleConfig = consoleConfig;
        this.registry = registry;
        this.timer = timer;
    }

    private static String tenant(ServerConfig.Bulkhead b) {
        return b.name().substring(b.source().name().length() + 1, b.name().length() - 1);
    }

    /** The bulkhead's name: {@code source} or {@code source[tenant]}. */
    String name() {
        return bulkhead.name();
    }

    /** Where its console is mounted: {@code /console/source} or {@code /console/source/tenant}. */
    String consolePath() {
        ServerConfig.Source s = bulkhead.source();
        return "/console/" + s.name() + (s.tenants().isEmpty() ? "" : "/" + tenant(bulkhead));
    }

    State state() {
        return state;
    }

    /** Why it is waiting (or what last went wrong), or null. */
    String lastError() {
        return lastError;
    }

    Instant since() {
        return since;
    }

    /** The running relay, or null (waiting, paused, stopped). */
    Relay relay() {
        return relay;
    }

    /** The console, or null before the database was reached (or with the console off). */
    ConsoleApi console() {
        return console;
    }

    /** The last backlog read, or null before one (or while waiting). */
    Backlog backlog() {
        BacklogMonitor m = monitor;
        return m == null || m.latest() == null ? null : m.latest().outbox();
    }

    /** The monitor (null while waiting). */
    BacklogMonitor monitor() {
        return monitor;
    }

    /**
     * The first attempt, at the server's start: a database that cannot be reached leaves the bulkhead WAITING (and
     * tried again); reachable tables that are missing or old, or relay settings out of Postbox's limits, fail the
     * start naming the key.
     */
    void start() {
        connect(true);
    }

    private synchronized void connect(boolean first) {
        pending = null;
        if (state == State.STOPPED) {
            return;
        }
        Postbox p;
        try {
            p = Postbox.builder(new UrlDataSource(bulkhead.source().jdbcUrl(), bulkhead.source().username(),
                    bulkhead.source().password())).tablePrefix(bulkhead.tablePrefix()).tracing(tracing).build();
        } catch (RuntimeException e) {
            if (first && e instanceof dev.postbox.common.ValidationException) {
                throw new RelayServer.ServerStartException(key + ": " + e.getMessage(), e);
            }
            waiting("database not reachable: " + describe(e), first);
            return;
        }
        SchemaState schema;
        try {
            schema = p.schema().inspect();
        } catch (RuntimeException e) {
            waiting("database not reachable: " + describe(e), first);
            return;
        }
        if (!schema.current()) {
            String problem = "the Postbox tables " + bulkhead.tablePrefix() + "* are at version " + schema.foundVersion()
                    + ", this Postbox needs " + schema.expectedVersion() + " (run postbox-server validate for what is"
                    + " missing)";
            if (first) {
                throw new RelayServer.ServerStartException(key + ": " + problem, null);
            }
            waiting(problem, false);
            return;
        }
        String problem = Relays.check(p, "sources." + bulkhead.source().name(), bulkhead.source().relay());
        if (problem != null) {
            if (first) {
                throw new RelayServer.ServerStartException(problem, null);
            }
            lastError = problem;
            state = State.STOPPED; // a setting out of range does not fix itself
            since = Instant.now();
            log.error("Source {} cannot run: {}", name(), problem);
            return;
        }
        postbox = p;
        monitor = new BacklogMonitor(p.queries(), BACKLOG_INTERVAL);
        metrics = PostboxMetrics.builder(monitor).channels(channels).tags(List.of(Tag.of("source", name())))
                .destinations(e -> {
                    String d = e.topic() == null ? null : destinationOf.get(e.channel() + "\u0000" + e.topic());
                    return d != null ? d : destinationOf.get(e.channel() + "\u0000");
                }, c -> destinationOf.get(c + "\u0000")).build();
        metrics.bindTo(registry);
        monitor.start();
        if (consoleConfig.enabled()) {
            console = console(p);
        }
        startRelay();
        state = State.RUNNING;
        since = Instant.now();
        if (lastError != null) {
            log.info("Source {} reached: relaying (was: {})", name(), lastError);
        }
        lastError = null;
    }

    private ConsoleApi console(Postbox p) {
        ConsoleApi.Builder b = ConsoleApi.builder(p.operations()).readOnly(consoleConfig.readOnly());
        if (consoleConfig.users().isEmpty()) {
            b.insecureNoAuthentication(Operator.of("local", Role.ADMIN));
        } else {
            BasicAuthenticator.Builder auth = BasicAuthenticator.builder().realm("postbox-server"); // one realm: the users are the server's
            consoleConfig.users().values().forEach(u -> auth.user(u.name(), u.passwordHash(),
                    Role.valueOf(u.role().toUpperCase(Locale.ROOT))));
            b.authenticator(auth.build());
        }
        return b.build();
    }

    private void startRelay() {
        dev.postbox.relay.RelayBuilder b = Relays.builder(postbox, routes, bulkhead.source().relay()).listener(metrics)
                .instanceId(instanceId + "/" + name());
        if (bulkhead.source().relay().poolSize() == null) {
            b.poolSize(bulkhead.source().poolSize()); // sources.NAME.pool-size, unless relay.pool-size says otherwise
        }
        relay = b.start();
    }

    private void waiting(String why, boolean first) {
        if (!why.equals(lastError)) {
            log.warn("Source {} ({}) waits: {}; tried again every {} s", name(), key, why, reconnect.toMillis() / 1000.0);
        }
        lastError = why;
        if (state != State.WAITING) {
            since = Instant.now();
        }
        state = State.WAITING;
        pending = timer.schedule(() -> {
            try {
                connect(false);
            } catch (RuntimeException e) {
                log.warn("Source {}: connecting failed: {}", name(), e.toString());
            }
        }, reconnect.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static String describe(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String m = t.getMessage();
        return t.getClass().getSimpleName() + (m == null ? "" : ": " + (m.length() > 300 ? m.substring(0, 300) : m));
    }

    /** Stops claiming (the relay finishes or gives back what it holds); answers what the bulkhead is now. */
    synchronized State pause() {
        if (state == State.RUNNING || state == State.DRAINING) {
            Relay r = relay;
            relay = null;
            r.close();
            state = State.PAUSED;
            since = Instant.now();
            log.info("Source {} paused", name());
        } else if (state != State.PAUSED) {
            throw new IllegalStateException("source " + name() + " is " + state + ": only a running or draining source"
                    + " can be paused");
        }
        return state;
    }

    synchronized State resume() {
        if (state == State.PAUSED) {
            startRelay();
            state = State.RUNNING;
            since = Instant.now();
            log.info("Source {} resumed", name());
        } else if (state == State.DRAINING) {
            state = State.RUNNING;
            since = Instant.now();
        } else if (state != State.RUNNING) {
            throw new IllegalStateException("source " + name() + " is " + state + ": only a paused or draining source"
                    + " can be resumed");
        }
        return state;
    }

    /** Relays until nothing is pending, publishing or failed (DEAD events stay), then pauses. */
    synchronized State drain() {
        if (state == State.PAUSED) {
            startRelay();
        } else if (state != State.RUNNING && state != State.DRAINING) {
            throw new IllegalStateException("source " + name() + " is " + state + ": only a running or paused source"
                    + " can be drained");
        }
        if (state != State.DRAINING) {
            state = State.DRAINING;
            since = Instant.now();
            log.info("Source {} draining: paused once nothing is left to publish", name());
            timer.schedule(this::checkDrained, 200, TimeUnit.MILLISECONDS);
        }
        return state;
    }

    private void checkDrained() {
        if (state != State.DRAINING) {
            return;
        }
        try {
            Backlog b = postbox.queries().outbox().backlog();
            if (b.pending() + b.inProgress() + b.failed() == 0) {
                synchronized (this) {
                    if (state == State.DRAINING) {
                        pause();
                        log.info("Source {} drained: nothing left to publish ({} DEAD)", name(), b.dead());
                    }
                }
                return;
            }
        } catch (RuntimeException e) {
            log.warn("Source {}: reading the backlog while draining failed: {}", name(), e.toString());
        }
        timer.schedule(this::checkDrained, 500, TimeUnit.MILLISECONDS);
    }

    /** Graceful: the relay stops claiming and finishes or gives back its leases; then the console and the meters. */
    @Override
    public synchronized void close() {
        state = State.STOPPED;
        since = Instant.now();
        if (pending != null) {
            pending.cancel(false);
        }
        Relay r = relay;
        relay = null;
        if (r != null) {
            try {
                r.close();
            } catch (RuntimeException e) {
                log.warn("Closing relay {} failed: {}", r.instanceId(), e.toString());
            }
        }
        if (console != null) {
            console.close();
        }
        if (monitor != null) {
            monitor.stop();
        }
    }
}
