package dev.postbox.server;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A destination's publisher behind its in-flight bound ({@code max-in-flight}), shared by every source routed to it: a
 * send takes a permit and returns it when its outcome is known. An event that finds none is not sent, nor is any
 * event after it in the same call (a later event of its aggregate must not overtake it)
 * ({@link PublishResult#notSent}: no retry counted) and is tried again after a short wait, so a saturated or slow
 * destination holds back only the events routed to it, never a relay's thread nor the other destinations. A paused
 * destination (the server's API) sends nothing: its events wait the same way, never going DEAD for it. Its meters:
 * {@code postbox.destination.sends{destination, outcome=published|failed|dead|not_sent}},
 * {@code postbox.destination.send.duration{destination}} and {@code postbox.destination.in.flight{destination}}.
 */
final class BoundedPublisher implements Publisher, AutoCloseable {

    /** How long an event held back at the bound waits before its next try. */
    static final Duration SATURATED_WAIT = Duration.ofMillis(200);
    /** How long an event of a paused destination waits before its next try. */
    static final Duration PAUSED_WAIT = Duration.ofSeconds(2);

    private final String name;
    private final Publisher target;
    private final int max;
    private final Semaphore permits;
    private volatile boolean paused;
    private volatile Instant lastSuccess;
    private volatile Instant lastFailure;
    private volatile String lastFailureReason;
    private final Counter published;
    private final Counter failed;
    private final Counter dead;
    private final Counter notSent;
    private final Timer duration;

    BoundedPublisher(String name, Publisher target, int maxInFlight) {
        this(name, target, maxInFlight, new SimpleMeterRegistry());
    }

    BoundedPublisher(String name, Publisher target, int maxInFlight, MeterRegistry registry) {
        this.name = name;
        this.target = target;
        this.max = maxInFlight;
        this.permits = new Semaphore(maxInFlight);
        this.published = sends(registry, "published");
        this.failed = sends(registry, "failed");
        this.dead = sends(registry, "dead");
        this.notSent = sends(registry, "not_sent");
        this.duration = Timer.builder("postbox.destination.send.duration").tag("destination", name)
                .description("From handing an event to the destination's client until its outcome")
                .publishPercentileHistogram().register(registry);
        Gauge.builder("postbox.destination.in.flight", this, BoundedPublisher::inFlight).tag("destination", name)
                .description("Sends under way (max-in-flight bounds them)").register(registry);
        Gauge.builder("postbox.destination.paused", this, p -> p.paused ? 1 : 0).tag("destination", name)
                .description("1 while the destination is paused through the server's API").register(registry);
    }

    private Counter sends(MeterRegistry registry, String outcome) {
        return Counter.builder("postbox.destination.sends").tag("destination", name).tag("outcome", outcome)
                .description("Events handed to the destination by outcome (not_sent: held back, paused or at"
                        + " max-in-flight, no retry counted)").register(registry);
    }

    boolean paused() {
        return paused;
    }

    void paused(boolean paused) {
        this.paused = paused;
    }

    /** UP (its last outcome a success, or none yet), DOWN (its last outcome a failure) or PAUSED. */
    String status() {
        if (paused) {
            return "PAUSED";
        }
        Instant f = lastFailure;
        Instant ok = lastSuccess;
        return f != null && (ok == null || f.isAfter(ok)) ? "DOWN" : "UP";
    }

    Instant lastSuccess() {
        return lastSuccess;
    }

    /** The last failure's reason, or null. */
    String lastFailureReason() {
        return lastFailureReason;
    }

    String name() {
        return name;
    }

    /** Sends under way now. */
    int inFlight() {
        return max - permits.availablePermits();
    }

    int maxInFlight() {
        return max;
    }

    @Override
    public Object orderLane(OutboxRecord event) {
        return target.orderLane(event);
    }

    @Override
    public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
        List<CompletionStage<PublishResult>> out = new ArrayList<>(records.size());
        if (paused) {
            PublishResult held = PublishResult.notSent("destination '" + name + "' is paused: not sent, tried again"
                    + " when it is resumed", PAUSED_WAIT);
            for (int i = 0; i < records.size(); i++) {
                out.add(CompletableFuture.completedFuture(held));
            }
            notSent.increment(records.size());
            return out;
        }
        List<OutboxRecord> sent = new ArrayList<>(records.size());
        List<Integer> at = new ArrayList<>(records.size());
        boolean full = false;
        for (int i = 0; i < records.size(); i++) {
            out.add(null);
            // once one event found no permit, none after it in this call is sent: a later event of the same
            // aggregate must never overtake it (a permit freed meanwhile would let it)
            if (!full && permits.tryAcquire()) {
                sent.add(records.get(i));
                at.add(i);
            } else {
                full = true;
                notSent.increment();
                out.set(i, CompletableFuture.completedFuture(PublishResult.notSent("destination '" + name + "' has "
                        + max + " sends in flight (max-in-flight): not sent, tried again shortly", SATURATED_WAIT)));
            }
        }
        if (sent.isEmpty()) {
            return out;
        }
        List<CompletionStage<PublishResult>> results;
        long started = System.nanoTime();
        try {
            results = target.publish(sent);
        } catch (RuntimeException e) {
            permits.release(sent.size());
            failure(e.toString());
            throw e;
        }
        for (int k = 0; k < results.size(); k++) {
            CompletionStage<PublishResult> r = results.get(k);
            r.whenComplete((v, e) -> {
                permits.release();
                duration.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
                if (e != null) {
                    failed.increment();
                    failure(e.toString());
                } else if (v.kind() == PublishResult.Kind.PUBLISHED) {
                    published.increment();
                    lastSuccess = Instant.now();
                } else {
                    (v.kind() == PublishResult.Kind.DEAD ? dead : failed).increment();
                    failure(v.reason());
                }
            });
            out.set(at.get(k), r);
        }
        return out;
    }

    private void failure(String reason) {
        lastFailureReason = reason;
        lastFailure = Instant.now();
    }

    @Override
    public void close() throws Exception {
        if (target instanceof AutoCloseable c) {
            c.close();
        }
    }
}
