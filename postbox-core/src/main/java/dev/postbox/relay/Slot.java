package dev.postbox.relay;

import dev.postbox.outbox.OutboxRecord;

import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * One of a relay's batches in flight ({@code inFlightBatches}): the lock that serializes its cycles (its
 * thread's and {@link Relay#runOnce()}'s), the keeper renewing its leases, its waves, and the batch while
 * it is out (given back if the thread ends with it).
 */
final class Slot {

    final ReentrantLock cycleLock = new ReentrantLock();
    final LeaseKeeper keeper;
    final Waves waves;
    volatile List<OutboxRecord> inFlight = List.of();

    /** @param closing whether the relay's close() began: no wave starts after that */
    Slot(RelayConfig config, Sender sender, LeaseKeeper keeper, BooleanSupplier closing) {
        this.keeper = keeper;
        this.waves = new Waves(config, sender, keeper, closing);
    }
}
