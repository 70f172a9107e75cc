package dev.postbox.bench;

import dev.postbox.Postbox;
import dev.postbox.relay.Relay;
import dev.postbox.spi.Publisher;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code count} relays {@code bench-0..} on one publisher, each with its own pool (the builder's default),
 * listening for notifications when the run uses them.
 */
final class RelayGroup implements AutoCloseable {

    private final List<Relay> relays = new ArrayList<>();
    private final Publisher sink;

    private RelayGroup(Publisher sink) {
        this.sink = sink;
    }

    static RelayGroup start(BenchContext ctx, Publisher sink, int count, int batchSize, RelayTimers timers) {
        return start(ctx.postbox, ctx.notifications, sink, count, batchSize, timers);
    }

    /** The same on {@code postbox}, listening for notifications when {@code listen}. */
    static RelayGroup start(Postbox postbox, boolean listen, Publisher sink, int count, int batchSize,
                            RelayTimers timers) {
        RelayGroup group = new RelayGroup(sink);
        try {
            for (int i = 0; i < count; i++) {
                group.relays.add(postbox.relay(sink).instanceId("bench-" + i).batchSize(batchSize).listener(timers)
                        .listenForNotifications(listen).start());
            }
        } catch (RuntimeException e) {
            group.close();
            throw e;
        }
        return group;
    }

    /** Stops every relay (each finishes or gives back its batch), closes their pools, then the sink if it is closeable. */
    @Override
    public void close() {
        for (Relay r : relays) {
            r.close();
        }
        relays.clear();
        if (sink instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                System.err.println("WARN sink did not close cleanly: " + e);
            }
        }
    }
}
