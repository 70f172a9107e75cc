package dev.postbox.spring.autoconfigure;

import dev.postbox.message.MessageRecord;
import dev.postbox.message.WorkerCycle;
import dev.postbox.message.WorkerListener;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.relay.RelayListener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Fans the relay's and worker's hooks out to every listener bean (metrics, tracing, the application's). */
final class Listeners {

    private Listeners() {
    }

    static RelayListener relay(List<RelayListener> all) {
        if (all.isEmpty()) {
            return RelayListener.NOOP;
        }
        if (all.size() == 1) {
            return all.get(0);
        }
        List<RelayListener> listeners = List.copyOf(all);
        return new RelayListener() {
            @Override
            public void claimed(String relayId, int count, Duration took) {
                listeners.forEach(l -> l.claimed(relayId, count, took));
            }

            @Override
            public void published(OutboxRecord event, Duration latency) {
                listeners.forEach(l -> l.published(event, latency));
            }

            @Override
            public void failed(OutboxRecord event, String reason, Instant nextRetry) {
                listeners.forEach(l -> l.failed(event, reason, nextRetry));
            }

            @Override
            public void dead(OutboxRecord event, String reason) {
                listeners.forEach(l -> l.dead(event, reason));
            }

            @Override
            public void leaseExpired(OutboxRecord event, int leaseExpiries) {
                listeners.forEach(l -> l.leaseExpired(event, leaseExpiries));
            }

            @Override
            public void clockSkew(String relayId, Duration offset, Duration bound, boolean trusted) {
                listeners.forEach(l -> l.clockSkew(relayId, offset, bound, trusted));
            }

            @Override
            public void batch(String relayId, int claimed, int published, int failed, int dead, Duration took) {
                listeners.forEach(l -> l.batch(relayId, claimed, published, failed, dead, took));
            }
        };
    }

    static WorkerListener worker(List<WorkerListener> all) {
        if (all.isEmpty()) {
            return WorkerListener.NOOP;
        }
        if (all.size() == 1) {
            return all.get(0);
        }
        List<WorkerListener> listeners = List.copyOf(all);
        return new WorkerListener() {
            @Override
            public void handled(MessageRecord event, Duration took, Throwable error) {
                listeners.forEach(l -> l.handled(event, took, error));
            }

            @Override
            public void failed(MessageRecord event, String reason, Instant nextRetry) {
                listeners.forEach(l -> l.failed(event, reason, nextRetry));
            }

            @Override
            public void dead(MessageRecord event, String reason) {
                listeners.forEach(l -> l.dead(event, reason));
            }

            @Override
            public void cancelled(MessageRecord event, String reason) {
                listeners.forEach(l -> l.cancelled(event, reason));
            }

            @Override
            public void cycle(String workerId, WorkerCycle cycle, Duration took) {
                listeners.forEach(l -> l.cycle(workerId, cycle, took));
            }
        };
    }
}
