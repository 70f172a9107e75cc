package dev.postbox.test;

import dev.postbox.message.MessageRecord;
import dev.postbox.message.WorkerCycle;
import dev.postbox.message.WorkerListener;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.relay.RelayListener;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@link RelayDriver}'s listener on its relay and worker: collects the {@code event_no}s of what they recorded
 * for the driver's {@link RelayDriver.Report}. Thread-safe (the relay reports on the driving thread, a crash arrives
 * on the relay's send thread).
 */
final class Collector implements RelayListener, WorkerListener {

    private final List<String> published = new ArrayList<>();
    private final List<String> failed = new ArrayList<>();
    private final List<String> dead = new ArrayList<>();
    private final List<String> takenOver = new ArrayList<>();
    private final List<String> crashed = new ArrayList<>();
    private final List<String> succeeded = new ArrayList<>();
    private final List<String> retried = new ArrayList<>();
    private final List<String> given = new ArrayList<>();

    synchronized void clear() {
        for (List<String> l : List.of(published, failed, dead, takenOver, crashed, succeeded, retried, given)) {
            l.clear();
        }
    }

    synchronized RelayDriver.Report report(int cycles, Duration advanced) {
        return new RelayDriver.Report(cycles, published, failed, dead, takenOver, crashed, succeeded, retried, given,
                advanced);
    }

    synchronized void crashed(String eventNo) {
        crashed.add(eventNo);
    }

    @Override
    public synchronized void published(OutboxRecord event, Duration latency) {
        published.add(event.eventNo());
    }

    @Override
    public synchronized void failed(OutboxRecord event, String reason, Instant nextRetry) {
        failed.add(event.eventNo());
    }

    @Override
    public synchronized void dead(OutboxRecord event, String reason) {
        dead.add(event.eventNo());
    }

    @Override
    public synchronized void leaseExpired(OutboxRecord event, int leaseExpiries) {
        takenOver.add(event.eventNo());
    }

    @Override
    public synchronized void handled(MessageRecord event, Duration took, Throwable error) {
        if (error == null) {
            succeeded.add(event.eventNo());
        }
    }

    @Override
    public synchronized void failed(MessageRecord event, String reason, Instant nextRetry) {
        retried.add(event.eventNo());
    }

    @Override
    public synchronized void dead(MessageRecord event, String reason) {
        given.add(event.eventNo());
    }

    @Override
    public synchronized void cancelled(MessageRecord event, String reason) {
        given.add(event.eventNo());
    }

    /** {@code first}, then {@code second}, for every hook of a relay. */
    static RelayListener both(RelayListener first, RelayListener second) {
        return new RelayListener() {
            @Override
            public void claimed(String relayId, int count, Duration took) {
                first.claimed(relayId, count, took);
                second.claimed(relayId, count, took);
            }

            @Override
            public void published(OutboxRecord event, Duration latency) {
                first.published(event, latency);
                second.published(event, latency);
            }

            @Override
            public void failed(OutboxRecord event, String reason, Instant nextRetry) {
                first.failed(event, reason, nextRetry);
                second.failed(event, reason, nextRetry);
            }

            @Override
            public void dead(OutboxRecord event, String reason) {
                first.dead(event, reason);
                second.dead(event, reason);
            }

            @Override
            public void leaseExpired(OutboxRecord event, int leaseExpiries) {
                first.leaseExpired(event, leaseExpiries);
                second.leaseExpired(event, leaseExpiries);
            }

            @Override
            public void clockSkew(String relayId, Duration offset, Duration bound, boolean trusted) {
                first.clockSkew(relayId, offset, bound, trusted);
                second.clockSkew(relayId, offset, bound, trusted);
            }

            @Override
            public void batch(String relayId, int claimed, int published, int failed, int dead, Duration took) {
                first.batch(relayId, claimed, published, failed, dead, took);
                second.batch(relayId, claimed, published, failed, dead, took);
            }
        };
    }

    /** {@code first}, then {@code second}, for every hook of a worker. */
    static WorkerListener both(WorkerListener first, WorkerListener second) {
        return new WorkerListener() {
            @Override
            public void handled(MessageRecord event, Duration took, Throwable error) {
                first.handled(event, took, error);
                second.handled(event, took, error);
            }

            @Override
            public void failed(MessageRecord event, String reason, Instant nextRetry) {
                first.failed(event, reason, nextRetry);
                second.failed(event, reason, nextRetry);
            }

            @Override
            public void dead(MessageRecord event, String reason) {
                first.dead(event, reason);
                second.dead(event, reason);
            }

            @Override
            public void cancelled(MessageRecord event, String reason) {
                first.cancelled(event, reason);
                second.cancelled(event, reason);
            }

            @Override
            public void cycle(String workerId, WorkerCycle cycle, Duration took) {
                first.cycle(workerId, cycle, took);
                second.cycle(workerId, cycle, took);
            }
        };
    }
}
