package dev.postbox.bench;

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

    private RelayGroup() {
    }

    static RelayGroup start(BenchContext ctx, Publisher sink, int count, int batchSize, RelayTimers timers) {
        RelayGroup group = new RelayGroup();
        try {
            for (int i = 0; i < count; i++) {
                group.relays.add(ctx.postbox.relay(sink).instanceId("bench-" + i).batchSize(batchSize).listener(timers)
                        .listenForNotifications(ctx.notifications).start());
            }
        } catch (RuntimeException e) {
            group.close();
            throw e;
        }
        return group;
    }

    /** Stops every relay (each finishes or gives back its batch) and closes their pools. */
    @Override
    public void close() {
        for (Relay r : relays) {
            r.close();
        }
        relays.clear();
    }
}
