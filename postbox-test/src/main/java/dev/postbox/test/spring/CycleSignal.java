package dev.postbox.test.spring;

import dev.postbox.message.WorkerCycle;
import dev.postbox.message.WorkerListener;
import dev.postbox.relay.RelayListener;

import java.time.Duration;

/**
 * Counts the cycles the starter's relay and worker finish (a listener bean the starter hands to both), so that
 * {@link PostboxAwait} waits for the next one instead of sleeping. Thread-safe.
 */
final class CycleSignal implements RelayListener, WorkerListener {

    private final Signal signal = new Signal();

    long cycles() {
        return signal.count();
    }

    /** Waits until a cycle after {@code seen} finished, or {@code nanos} passed; false if interrupted. */
    boolean awaitAfter(long seen, long nanos) {
        return signal.awaitAfter(seen, nanos);
    }

    private void finished() {
        signal.bump();
    }

    @Override
    public void batch(String relayId, int claimed, int published, int failed, int dead, Duration took) {
        finished();
    }

    @Override
    public void cycle(String workerId, WorkerCycle cycle, Duration took) {
        finished();
    }
}
