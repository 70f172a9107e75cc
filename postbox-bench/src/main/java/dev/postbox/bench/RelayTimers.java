package dev.postbox.bench;

import dev.postbox.relay.RelayListener;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where the relays spend their time, from the listener's hooks: the claim transaction, and the rest of
 * each cycle (publish and the recording transaction). {@link #window()} returns the totals since the
 * previous call, so progress lines show the trend while the table's history grows. Thread-safe.
 */
final class RelayTimers implements RelayListener {

    private final LongAdder cycles = new LongAdder();
    private final LongAdder claimed = new LongAdder();
    private final LongAdder claimNanos = new LongAdder();
    private final LongAdder cycleNanos = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder dead = new LongAdder();
    /** The claim time of the cycle in progress; both hooks of one cycle run on that relay's thread. */
    private final ThreadLocal<long[]> claimOfCycle = ThreadLocal.withInitial(() -> new long[1]);
    private Snapshot previous = new Snapshot(0, 0, 0, 0);

    /** Totals of some cycles. */
    record Snapshot(long cycles, long claimed, long claimNanos, long cycleNanos) {

        Snapshot minus(Snapshot o) {
            return new Snapshot(cycles - o.cycles, claimed - o.claimed, claimNanos - o.claimNanos, cycleNanos - o.cycleNanos);
        }

        @Override
        public String toString() {
            if (cycles == 0) {
                return "cycles=0";
            }
            double claimMs = claimNanos / 1e6 / cycles;
            double restMs = (cycleNanos - claimNanos) / 1e6 / cycles;
            return "cycles=" + cycles + " avg_claimed=" + Fmt.two((double) claimed / cycles)
                    + " claim_ms=" + Fmt.two(claimMs) + " publish_record_ms=" + Fmt.two(restMs);
        }
    }

    @Override
    public void claimed(String relayId, int count, Duration took) {
        claimOfCycle.get()[0] = took.toNanos();
    }

    @Override
    public void batch(String relayId, int claimedCount, int published, int failedCount, int deadCount, Duration took) {
        long[] claim = claimOfCycle.get();
        claimNanos.add(claim[0]);
        claim[0] = 0;
        cycles.increment();
        claimed.add(claimedCount);
        cycleNanos.add(took.toNanos());
        failed.add(failedCount);
        dead.add(deadCount);
    }

    Snapshot total() {
        return new Snapshot(cycles.sum(), claimed.sum(), claimNanos.sum(), cycleNanos.sum());
    }

    /** Totals since the previous call (or since the start). */
    synchronized Snapshot window() {
        Snapshot now = total();
        Snapshot w = now.minus(previous);
        previous = now;
        return w;
    }

    /** Failed and dead outcomes: the null sink has none, so anything here is a relay problem. */
    String failures() {
        return "failed=" + failed.sum() + " dead=" + dead.sum();
    }
}
