package dev.postbox.server;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.relay.RelayDefaults;
import dev.postbox.server.config.ServerConfig;
import dev.postbox.spi.Destination;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * destination (the server's API) sends nothing: its events wait the same way, never going DEAD for it. A destination
 * that is down (its breaker's number of sends failed in a row, {@value #CIRCUIT_FAILURES} by default, of more than one
 * event, with no success nor DEAD answer between) is not sent to either (a circuit breaker): its events wait unsent, and
 * once every probe interval ({@link #PROBE_INTERVAL} by default) one event goes as a probe, a different one each time where the call has one (never ahead of
 * an earlier event of its aggregate); the first answer closes it again. A probe that fails after a probe of another
 * event failed is the destination's failure and counts as no attempt; the same event failing probe after probe (a
 * poison, the only event left) counts each time and reaches DEAD. So an outage of any length costs an event a retry
 * or two, not all of them, and no poison event can hold a destination shut. Its meters:
 * {@code postbox.destination.sends{destination, outcome=published|failed|dead|not_sent}},
 * {@code postbox.destination.send.duration{destination}} and {@code postbox.destination.in.flight{destination}}.
 */
final class BoundedPublisher implements Publisher, AutoCloseable {

    /** How long an event held back at the bound waits before its next try. */
    static final Duration SATURATED_WAIT = Duration.ofMillis(200);
    /** How long an event of a paused destination waits before its next try. */
    static final Duration PAUSED_WAIT = Duration.ofSeconds(2);

    /** Sends failing in a row (RETRY outcomes or exceptions, no success or DEAD between) that open the circuit. */
    static final int CIRCUIT_FAILURES = 5;
    /** While the circuit is open, one event is sent as a probe this often; the others wait as long, unsent. */
    static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);

    /** The event id of a failure that was a whole call's (several events). */
    private static final long ANY = Long.MAX_VALUE;

    private static final Logger log = LoggerFactory.getLogger(BoundedPublisher.class);

    private final String name;
    private final Publisher target;
    /** The clients of each bulkhead's {@link #client view}, closed with the destination. */
    private final List<Publisher> clients = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Object circuit = new Object();
    private final int circuitFailures;
    private volatile Duration probeInterval;
    private int failuresInRow;
    /** 2 once the failures in a row are of more than one event (one event failing alone may be a poison), else 0. */
    private int failingEvents;
    private long firstFailing = Long.MIN_VALUE;
    private long openedAt;
    private boolean probing;
    private long lastProbe = Long.MIN_VALUE;
    private long lastFailedProbe = Long.MIN_VALUE;
    private final int max;
    private final Duration answerTimeout;
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
        this(name, target, maxInFlight, new SimpleMeterRegistry(), answerTimeout(RelayDefaults.SEND_TIMEOUT),
                ServerConfig.Breaker.DEFAULT);
    }

    /**
     * @param answerTimeout how long a send holds its permit without an answer: then it is taken for failed (the
     *                      relay stopped waiting at its send timeout and retries the event), its permit returned, and
     *                      it counts towards the breaker, so a client whose futures never complete can neither take
     *                      every permit for good nor look healthy ({@link #answerTimeout(Duration)})
     * @param breaker       the failures in a row that take the destination for down, and its probe interval then
     */
    BoundedPublisher(String name, Publisher target, int maxInFlight, MeterRegistry registry, Duration answerTimeout,
                     ServerConfig.Breaker breaker) {
        this.name = name;
        this.answerTimeout = answerTimeout;
        this.circuitFailures = breaker.failures();
        this.probeInterval = breaker.probeInterval();
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
        Gauge.builder("postbox.destination.down", this, p -> p.circuitOpen() ? 1 : 0).tag("destination", name)
                .description("1 while the destination is taken for down (its breaker's failed sends in a row):"
                        + " its events wait unsent but for a probe now and then")
                .register(registry);
        Gauge.builder("postbox.destination.paused", this, p -> p.paused ? 1 : 0).tag("destination", name)
                .description("1 while the destination is paused through the server's API").register(registry);
    }

    /** The permit deadline for sources whose longest send timeout is {@code sendTimeout}: it, plus a second. */
    static Duration answerTimeout(Duration sendTimeout) {
        return sendTimeout.plusSeconds(1);
    }

    private Counter sends(MeterRegistry registry, String outcome) {
        return Counter.builder("postbox.destination.sends").tag("destination", name).tag("outcome", outcome)
                .description("Events handed to the destination by outcome (not_sent: held back, paused or at"
                        + " max-in-flight, no retry counted)").register(registry);
    }

    /** Tests shorten the probe interval. */
    void probeInterval(Duration interval) {
        this.probeInterval = interval;
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
        if (circuitOpen()) {
            return "DOWN";
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

    /** The client's: the relay's {@code send} span names the broker's system and topic, exchange or subject. */
    @Override
    public Destination destination(OutboxRecord event) {
        return target.destination(event);
    }

    /**
     * This destination through a client of its own ({@code client}: its own connection, e.g. one per bulkhead, so that
     * one tenant's flood never queues another's sends behind it on one connection), under this destination's bound,
     * breaker, pause and meters; {@code client} is closed with the destination.
     */
    Publisher client(Publisher client) {
        clients.add(client);
        return new Publisher() {
            @Override
            public Object orderLane(OutboxRecord event) {
                return client.orderLane(event);
            }

            @Override
            public Destination destination(OutboxRecord event) {
                return client.destination(event);
            }

            @Override
            public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
                return BoundedPublisher.this.publish(client, records);
            }
        };
    }

    @Override
    public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
        return publish(target, records);
    }

    private List<CompletionStage<PublishResult>> publish(Publisher target, List<OutboxRecord> records) {
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
        int probe = probe(records); // -1: the circuit is closed, send them all
        List<OutboxRecord> sent = new ArrayList<>(records.size());
        List<Integer> at = new ArrayList<>(records.size());
        boolean full = false;
        for (int i = 0; i < records.size(); i++) {
            out.add(null);
            if (probe != -1 && i != probe) { // the destination is down: only its probe (if any) goes
                notSent.increment();
                out.set(i, CompletableFuture.completedFuture(PublishResult.notSent(downReason(), probeInterval)));
                continue;
            }
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
            if (probe >= 0) {
                synchronized (circuit) {
                    probing = false;
                }
            }
            return out;
        }
        List<CompletionStage<PublishResult>> results;
        long started = System.nanoTime();
        try {
            results = target.publish(sent);
        } catch (RuntimeException e) {
            permits.release(sent.size());
            failure(e.toString());
            circuitFailed(sent.size() > 1 ? ANY : sent.get(0).id(), probe >= 0);
            throw e;
        }
        for (int k = 0; k < results.size(); k++) {
            OutboxRecord event = sent.get(k);
            boolean isProbe = probe >= 0;
            // the first of the client's answer and the deadline settles the send, once: its permit goes back then
            CompletableFuture<PublishResult> answer = new CompletableFuture<>();
            CompletionStage<PublishResult> given = results.get(k);
            if (given == null) {
                answer.completeExceptionally(new IllegalStateException("the client returned no stage for the event"));
            } else {
                given.whenComplete((v, e) -> {
                    if (e == null) {
                        answer.complete(v);
                    } else {
                        answer.completeExceptionally(e);
                    }
                });
                answer.orTimeout(answerTimeout.toMillis(), TimeUnit.MILLISECONDS);
            }
            CompletionStage<PublishResult> r = answer.handle((v, error) -> {
                Throwable e = error instanceof java.util.concurrent.TimeoutException
                        ? new java.util.concurrent.TimeoutException("destination '" + name + "' gave no answer within "
                                + answerTimeout.toMillis() + " ms") : error;
                permits.release();
                duration.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
                if (e == null && v != null && v.kind() == PublishResult.Kind.PUBLISHED) {
                    published.increment();
                    lastSuccess = Instant.now();
                    circuitAnswered();
                    return v;
                }
                if (e == null && v != null && v.kind() == PublishResult.Kind.DEAD) { // about the event: the destination answered
                    dead.increment();
                    failure(v.reason());
                    circuitAnswered();
                    return v;
                }
                String reason = e != null ? e.toString() : v == null ? "the client answered null" : v.reason();
                failure(reason);
                boolean destinations = circuitFailed(event.id(), isProbe);
                if (destinations) { // a probe failed as another event's did: the destination's failure, not the event's
                    notSent.increment();
                    return PublishResult.notSent(downReason(), probeInterval);
                }
                failed.increment();
                if (e != null) {
                    throw e instanceof java.util.concurrent.CompletionException c ? c
                            : new java.util.concurrent.CompletionException(e);
                }
                return v;
            });
            out.set(at.get(k), r);
        }
        return out;
    }

    /**
     * The circuit's decision for a call: -1 while it is closed (send everything); while it is open, the index of the
     * call's one probe once a {@link #PROBE_INTERVAL} has passed since the last (to one call at a time), else -2
     * (nothing). The probe is the first event that was not the last probe and whose aggregate no earlier event of the
     * call has (so no aggregate's order is touched), or the first event when there is none such.
     */
    private int probe(List<OutboxRecord> records) {
        synchronized (circuit) {
            if (!circuitOpenLocked()) {
                return -1;
            }
            long now = System.nanoTime();
            if (probing || now - openedAt < probeInterval.toNanos() || records.isEmpty()) {
                return -2;
            }
            probing = true;
            openedAt = now;
            java.util.Set<String> earlier = new java.util.HashSet<>();
            for (int i = 0; i < records.size(); i++) {
                OutboxRecord r = records.get(i);
                String aggregate = r.aggregateType() + "/" + r.aggregateId();
                if (r.id() != lastProbe && !earlier.contains(aggregate)) {
                    lastProbe = r.id();
                    return i;
                }
                earlier.add(aggregate);
            }
            lastProbe = records.get(0).id();
            return 0;
        }
    }

    private boolean circuitOpenLocked() {
        return failuresInRow >= circuitFailures && failingEvents == 2;
    }

    /**
     * Counts a failed send of event {@code eventId} ({@link #ANY}: a call of several that threw); true when it was a
     * probe that failed after the previous probe, another event, failed too: the destination's failure, which then
     * counts as no attempt of the event.
     */
    private boolean circuitFailed(long eventId, boolean probe) {
        synchronized (circuit) {
            boolean wasOpen = circuitOpenLocked();
            failuresInRow++;
            if (firstFailing == Long.MIN_VALUE) {
                firstFailing = eventId;
            } else if (eventId != firstFailing || eventId == ANY) {
                failingEvents = 2;
            }
            boolean destinations = false;
            if (probe) {
                destinations = lastFailedProbe != Long.MIN_VALUE && lastFailedProbe != eventId;
                lastFailedProbe = eventId;
                probing = false;
                openedAt = System.nanoTime();
            }
            if (!wasOpen && circuitOpenLocked()) {
                openedAt = System.nanoTime();
                log.warn("Destination {} is down ({} sends failed in a row, last: {}): its events wait, not sent, with"
                        + " one probe every {} ms", name, failuresInRow, lastFailureReason, probeInterval.toMillis());
            }
            return destinations;
        }
    }

    private void circuitAnswered() {
        synchronized (circuit) {
            if (circuitOpenLocked()) {
                log.info("Destination {} answers again after {} failed sends: sending", name, failuresInRow);
            }
            failuresInRow = 0;
            failingEvents = 0;
            firstFailing = Long.MIN_VALUE;
            probing = false;
            lastFailedProbe = Long.MIN_VALUE;
        }
    }

    /** Whether the destination is taken for down: its events wait unsent but for a probe now and then. */
    boolean circuitOpen() {
        synchronized (circuit) {
            return circuitOpenLocked();
        }
    }

    private String downReason() {
        return "destination '" + name + "' is down (" + circuitFailures + "+ sends failed in a row, last: "
                + lastFailureReason + "): not sent, tried again when it answers";
    }

    private static List<Publisher> concat(Publisher first, List<Publisher> rest) {
        List<Publisher> all = new ArrayList<>(rest);
        all.add(0, first);
        return all;
    }

    private void failure(String reason) {
        lastFailureReason = reason;
        lastFailure = Instant.now();
    }

    @Override
    public void close() throws Exception {
        Exception first = null;
        for (Publisher p : concat(target, clients)) {
            if (p instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
