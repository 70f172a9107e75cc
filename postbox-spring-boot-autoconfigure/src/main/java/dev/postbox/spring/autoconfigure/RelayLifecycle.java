package dev.postbox.spring.autoconfigure;

import dev.postbox.relay.Relay;
import dev.postbox.relay.RelayBuilder;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the relay when the application context has started and closes it (stop claiming, finish or give back
 * the leases, close its own pool) before the context's beans, the application's data source among them, go.
 * The relay is built (settings validated, its pool opened) when this bean is created, so a bad
 * {@code postbox.relay.*} value fails the start-up; a context stopped and started again gets a new relay.
 */
public final class RelayLifecycle implements SmartLifecycle, DisposableBean {

    /** Starts after, and stops before, the web server and other default-phase lifecycles. */
    public static final int PHASE = Integer.MAX_VALUE - 2048;

    private final RelayBuilder builder;
    private Relay relay;
    private boolean running;

    RelayLifecycle(RelayBuilder builder) {
        this.builder = builder;
        this.relay = builder.build();
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        if (relay == null) {
            relay = builder.build();
        }
        relay.start();
        running = true;
    }

    @Override
    public synchronized void stop() {
        running = false;
        closeRelay();
    }

    @Override
    public synchronized void destroy() {
        running = false;
        closeRelay();
    }

    private void closeRelay() {
        Relay r = relay;
        relay = null;
        if (r != null) {
            r.close();
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /**
     * Whether the relay really works: started by this lifecycle and its thread alive ({@link Relay#isRunning()});
     * false when the relay's thread died. For the health indicator.
     */
    public synchronized boolean relayWorking() {
        return running && relay != null && relay.isRunning();
    }

    /** Whether the running relay's clock is within its bound of the database's (true when not running). */
    public synchronized boolean relayClockTrusted() {
        return !running || relay == null || relay.clockTrusted();
    }

    /** The relay while running, or null. */
    public synchronized Relay relay() {
        return running ? relay : null;
    }
}
