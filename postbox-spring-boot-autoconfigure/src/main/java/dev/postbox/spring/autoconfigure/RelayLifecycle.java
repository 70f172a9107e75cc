package dev.postbox.spring.autoconfigure;

import dev.postbox.relay.Relay;
import dev.postbox.relay.RelayBuilder;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the relay when the application context has started and closes it (stop claiming, finish or give back
 * the leases, close its own pool) before the context's beans, the application's data source among them, go.
 */
public final class RelayLifecycle implements SmartLifecycle {

    /** Starts after, and stops before, the web server and other default-phase lifecycles. */
    public static final int PHASE = Integer.MAX_VALUE - 2048;

    private final RelayBuilder builder;
    private volatile Relay relay;

    RelayLifecycle(RelayBuilder builder) {
        this.builder = builder;
    }

    @Override
    public synchronized void start() {
        if (relay == null) {
            relay = builder.build().start();
        }
    }

    @Override
    public synchronized void stop() {
        Relay r = relay;
        relay = null;
        if (r != null) {
            r.close();
        }
    }

    @Override
    public boolean isRunning() {
        return relay != null;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** The running relay, or null before start and after stop. */
    public Relay relay() {
        return relay;
    }
}
