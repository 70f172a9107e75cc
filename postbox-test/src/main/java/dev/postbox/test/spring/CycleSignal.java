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

    private long cycles;

    synchronized long cycles() {
        return cycles;
    }

    /** Waits until a cycle after {@code seen} finished, or {@code nanos} passed; false if interrupted. */
    synchronized boolean awaitAfter(long seen, long nanos) {
        long deadline = System.nanoTime() + nanos;
        long left = nanos;
        while (cycles == seen && left > 0) {
            try {
                wait(Math.max(1, left / 1_000_000), 0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            left = deadline - System.nanoTime();
        }
        return true;
    }

    private synchronized void finished() {
        cycles++;
        notifyAll();
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
