package dev.postbox.test;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A {@link Publisher} for tests: it records every event the relay delivers, answers with the outcomes a test
 * injects, and asserts on what it received. Without injections every event is delivered and acknowledged.
 *
 * <pre>{@code
 * RecordingPublisher publisher = new RecordingPublisher();
 * publisher.failNext(2);                       // the broker is down for two sends
 * publisher.loseAckNext(1);                    // then one send arrives but its acknowledgement is lost
 * ...drive the relay...
 * publisher.assertPublishedTimes("ORDER_CREATED:1", 2);
 * publisher.assertInOrderPerAggregate();
 * }</pre>
 *
 * What each injection does to one event of a publish call, checked in this order:
 * <ul>
 *   <li>{@link #failNext}, {@link #failWhen}: a retryable failure; not delivered (the relay records FAILED with its
 *       backoff).</li>
 *   <li>{@link #rejectWhen}: a failure that is not retryable; not delivered (the relay records DEAD).</li>
 *   <li>Otherwise delivered: forwarded to the target given to {@link #forwardingTo} (if any), handed to the
 *       {@link #onDelivery} consumers, recorded. A target's failure, or a consumer that throws, makes the event's
 *       send fail (retryable) and records nothing.</li>
 *   <li>{@link #loseAckNext}, {@link #loseAckWhen}: delivered and recorded, but the relay is told the send failed,
 *       so it publishes the event again after the backoff: a duplicate the consumer's inbox must absorb.</li>
 *   <li>{@link #crashAfterPublishNext}, {@link #crashAfterPublishWhen}: delivered and recorded, then the relay's
 *       process "crashes" before it records the outcome: the {@link RelayDriver} that built the relay cuts the
 *       relay off its database and abandons the cycle, so the event stays PUBLISHING under a lease that must
 *       expire (by the test clock) before another relay publishes it again. Needs the relay built by a
 *       {@code RelayDriver}.</li>
 * </ul>
 * {@link #latency} delays every call's answer (in real time; deliveries are recorded when it has passed).
 * <p>
 * Thread-safe: the relay calls it on its threads while the test injects and asserts on its own. Assertions throw
 * {@link AssertionError} with a message listing the offenders and what was received.
 */
public final class RecordingPublisher implements Publisher {

    /** Reason of the injected retryable failures ({@link #failNext}, {@link #failWhen}). */
    public static final String INJECTED_FAILURE = "injected failure (RecordingPublisher)";
    /** Reason of the injected non-retryable failures ({@link #rejectWhen}). */
    public static final String INJECTED_REJECTION = "injected rejection (RecordingPublisher)";
    /** Reason reported for a delivered event whose acknowledgement was lost ({@link #loseAckNext}). */
    public static final String LOST_ACK = "acknowledgement lost (RecordingPublisher): the event was delivered";

    /**
     * One delivery of an event.
     *
     * @param event the event as the relay handed it over
     * @param copy  1 for the event's first delivery, 2 for its first duplicate, ...
     */
    public record Delivery(OutboxRecord event, int copy) {

        /** The delivered event's {@code event_no}. */
        public String eventNo() {
            return event.eventNo();
        }
    }

    private final Object lock = new Object();
    private final Publisher target;
    private final List<Consumer<Delivery>> consumers = new CopyOnWriteArrayList<>();
    private final List<Delivery> deliveries = new ArrayList<>();
    private final Map<String, Integer> copies = new LinkedHashMap<>();
    private final Injections injections = new Injections();
    private volatile Consumer<List<OutboxRecord>> crash;
    /** Set by an injected crash until the driver's new relay runs: a dead process sends nothing more. */
    private volatile boolean down;

    /** A publisher that acknowledges every event itself. */
    public RecordingPublisher() {
        this(null);
    }

    private RecordingPublisher(Publisher target) {
        this.target = target;
    }

    /**
     * A publisher that records and forwards every delivered event to {@code target} (e.g. the in-process
     * {@code EventBus}), whose outcome counts: an event the target refuses is not delivered.
     */
    public static RecordingPublisher forwardingTo(Publisher target) {
        return new RecordingPublisher(Objects.requireNonNull(target, "target"));
    }

    /**
     * Adds {@code consumer}, called with every delivery before it is recorded, on the relay's send thread: the
     * consumer side of a test (e.g. {@code inbox.once(...)} in its own transaction). A consumer that throws makes
     * the event's send fail (retryable), as a broker would redeliver it.
     */
    public RecordingPublisher onDelivery(Consumer<Delivery> consumer) {
        consumers.add(Objects.requireNonNull(consumer, "consumer"));
        return this;
    }

    // ---- failure injection ----

    /** The next {@code n} events sent fail with a retryable error and are not delivered. */
    public RecordingPublisher failNext(int n) {
        injections.failNext(atLeastZero("n", n));
        return this;
    }

    /** Every event matching {@code condition} fails with a retryable error and is not delivered, until {@link #heal()}. */
    public RecordingPublisher failWhen(Predicate<OutboxRecord> condition) {
        injections.failWhen(Objects.requireNonNull(condition, "condition"));
        return this;
    }

    /** Every event matching {@code condition} is refused as not retryable (the relay records it DEAD), until {@link #heal()}. */
    public RecordingPublisher rejectWhen(Predicate<OutboxRecord> condition) {
        injections.rejectWhen(Objects.requireNonNull(condition, "condition"));
        return this;
    }

    /** Every call answers after {@code latency} (zero: at once), measured in real time. */
    public RecordingPublisher latency(Duration latency) {
        Objects.requireNonNull(latency, "latency");
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative (was " + latency + ")");
        }
        injections.latency(latency);
        return this;
    }

    /** The next {@code n} events delivered are reported to the relay as failed (retryable): each is published again. */
    public RecordingPublisher loseAckNext(int n) {
        injections.loseAckNext(atLeastZero("n", n));
        return this;
    }

    /** Every delivered event matching {@code condition} is reported as failed, until {@link #heal()}. */
    public RecordingPublisher loseAckWhen(Predicate<OutboxRecord> condition) {
        injections.loseAckWhen(Objects.requireNonNull(condition, "condition"));
        return this;
    }

    /**
     * After each of the next {@code n} events is delivered, the relay crashes before recording the outcome of its
     * call (see the class comment). Needs the relay built by a {@link RelayDriver}.
     */
    public RecordingPublisher crashAfterPublishNext(int n) {
        injections.crashNext(atLeastZero("n", n));
        return this;
    }

    /** After a delivered event matching {@code condition}, the relay crashes before recording, until {@link #heal()}. */
    public RecordingPublisher crashAfterPublishWhen(Predicate<OutboxRecord> condition) {
        injections.crashWhen(Objects.requireNonNull(condition, "condition"));
        return this;
    }

    /** Removes every injection (failures, rejections, lost acknowledgements, crashes, latency); keeps the deliveries. */
    public RecordingPublisher heal() {
        injections.clear();
        return this;
    }

    /** As new: {@link #heal()}, forgets every delivery and removes the {@link #onDelivery} consumers. */
    public RecordingPublisher reset() {
        synchronized (lock) {
            heal();
            deliveries.clear();
            copies.clear();
            consumers.clear();
        }
        return this;
    }

    /**
     * Set by the {@link RelayDriver} that built the relay: cuts the relay off its database; called with the events
     * of the call that were delivered.
     */
    void crashHook(Consumer<List<OutboxRecord>> hook) {
        this.crash = hook;
    }

    /** Called by the {@link RelayDriver} once the crashed relay is replaced: sends are delivered again. */
    void restarted() {
        down = false;
    }

    // ---- what was delivered ----

    /** Every delivery so far, in order. */
    public List<Delivery> deliveries() {
        synchronized (lock) {
            return List.copyOf(deliveries);
        }
    }

    /** The distinct {@code event_no}s delivered so far, in the order of their first delivery. */
    public List<String> published() {
        synchronized (lock) {
            return List.copyOf(copies.keySet());
        }
    }

    /** How many times {@code eventNo} was delivered (0: never). */
    public int copies(String eventNo) {
        synchronized (lock) {
            return copies.getOrDefault(eventNo, 0);
        }
    }

    /** The last delivered copy of {@code eventNo}, if it was delivered. */
    public Optional<OutboxRecord> last(String eventNo) {
        synchronized (lock) {
            for (int i = deliveries.size() - 1; i >= 0; i--) {
                if (deliveries.get(i).eventNo().equals(eventNo)) {
                    return Optional.of(deliveries.get(i).event());
                }
            }
            return Optional.empty();
        }
    }

    /**
     * Waits until at least {@code count} deliveries (duplicates included) were recorded, for deliveries that arrive on
     * their own threads (a {@link #latency}, a relay running in the background). Waits on the deliveries themselves,
     * never sleeps.
     *
     * @throws AssertionError after {@code timeout}, with what was delivered
     */
    public void awaitDeliveries(int count, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (deliveries.size() < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("expected at least " + count + " deliveries within " + timeout + " but got "
                            + deliveries.size() + ": " + summary());
                }
                try {
                    lock.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted while awaiting " + count + " deliveries", e);
                }
            }
        }
    }

    // ---- assertions ----

    /** Asserts that every one of {@code eventNos} was delivered at least once. */
    public void assertPublished(String... eventNos) {
        List<String> missing = new ArrayList<>();
        for (String e : eventNos) {
            if (copies(e) == 0) {
                missing.add(e);
            }
        }
        if (!missing.isEmpty()) {
            throw new AssertionError("expected published but never delivered: " + missing + "; delivered: " + summary());
        }
    }

    /** Asserts that none of {@code eventNos} was delivered. */
    public void assertNotPublished(String... eventNos) {
        List<String> found = new ArrayList<>();
        for (String e : eventNos) {
            int n = copies(e);
            if (n > 0) {
                found.add(e + " (" + n + "x)");
            }
        }
        if (!found.isEmpty()) {
            throw new AssertionError("expected not published but delivered: " + found + "; delivered: " + summary());
        }
    }

    /** Asserts that {@code eventNo} was delivered exactly {@code times} times (duplicates included). */
    public void assertPublishedTimes(String eventNo, int times) {
        int n = copies(eventNo);
        if (n != times) {
            throw new AssertionError("expected " + eventNo + " delivered " + times + " time(s) but it was delivered " + n
                    + " time(s); delivered: " + summary());
        }
    }

    /** Asserts that the last delivered copy of {@code eventNo} carried header {@code name} with {@code value}. */
    public void assertHeader(String eventNo, String name, String value) {
        OutboxRecord r = last(eventNo).orElseThrow(() -> new AssertionError("expected " + eventNo
                + " with header " + name + "=" + value + " but it was never delivered; delivered: " + summary()));
        Map<String, String> headers = r.headers() == null ? Map.of() : r.headers();
        if (!Objects.equals(headers.get(name), value)) {
            throw new AssertionError("expected " + eventNo + " with header " + name + "=" + value + " but "
                    + (headers.containsKey(name) ? "it was " + name + "=" + headers.get(name) : "it has no header " + name)
                    + "; its headers: " + headers);
        }
    }

    /**
     * Asserts that within every aggregate, events were first delivered in the order they were written (id order):
     * no event reached the target before an earlier event of its aggregate did. Duplicates of an event already
     * delivered are allowed (they are what at-least-once delivery looks like).
     */
    public void assertInOrderPerAggregate() {
        List<String> offenders = new ArrayList<>();
        Map<String, OutboxRecord> latest = new LinkedHashMap<>();
        for (Delivery d : deliveries()) {
            if (d.copy() > 1) {
                continue;
            }
            OutboxRecord e = d.event();
            String aggregate = e.aggregateType() + "/" + e.aggregateId();
            OutboxRecord before = latest.get(aggregate);
            if (before != null && before.id() > e.id()) {
                offenders.add(aggregate + ": " + e.eventNo() + " (id " + e.id() + ") first delivered after "
                        + before.eventNo() + " (id " + before.id() + ")");
            } else {
                latest.put(aggregate, e);
            }
        }
        if (!offenders.isEmpty()) {
            throw new AssertionError("order per aggregate broken: " + offenders + "; delivered: " + summary());
        }
    }

    /** What was delivered, for failure messages: {@code event_no} with its copies, in first-delivery order. */
    public String summary() {
        synchronized (lock) {
            if (copies.isEmpty()) {
                return "nothing";
            }
            List<String> parts = new ArrayList<>();
            copies.forEach((e, n) -> parts.add(n == 1 ? e : e + " (" + n + "x)"));
            return parts.toString();
        }
    }

    @Override
    public String toString() {
        return "RecordingPublisher[delivered " + summary() + "]";
    }

    // ---- the Publisher ----

    @Override
    public Object orderLane(OutboxRecord event) {
        return target == null ? null : target.orderLane(event);
    }

    @Override
    public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
        if (down) { // the rest of a crashed relay's batch (a later wave): its process is gone, nothing goes out
            List<CompletionStage<PublishResult>> none = new ArrayList<>(records.size());
            records.forEach(r -> none.add(CompletableFuture.completedFuture(PublishResult.retry("relay crashed"))));
            return none;
        }
        Injections.Plan plan = injections.plan(records);
        Duration wait = plan.latency();
        CompletableFuture<Void> start = wait.isZero() ? CompletableFuture.completedFuture(null)
                : CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(wait.toNanos(), TimeUnit.NANOSECONDS));
        CompletableFuture<List<PublishResult>> all = start.thenCompose(ignored -> send(records, plan.fates()))
                .thenApply(sent -> settle(records, plan, sent));
        List<CompletionStage<PublishResult>> out = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
            int index = i;
            out.add(all.thenApply(results -> results.get(index)));
        }
        return out;
    }

    /** The target's outcome of each event planned for sending (published when there is no target); null for the others. */
    private CompletableFuture<List<PublishResult>> send(List<OutboxRecord> records, Injections.Fate[] plans) {
        List<OutboxRecord> toSend = new ArrayList<>();
        for (int i = 0; i < plans.length; i++) {
            if (plans[i] == Injections.Fate.SEND) {
                toSend.add(records.get(i));
            }
        }
        List<CompletableFuture<PublishResult>> answers = new ArrayList<>();
        if (target != null && !toSend.isEmpty()) {
            for (CompletionStage<PublishResult> s : target.publish(toSend)) {
                answers.add(s.toCompletableFuture().exceptionally(e -> PublishResult.retry("target failed: " + e)));
            }
            if (answers.size() != toSend.size()) {
                throw new IllegalStateException("target returned " + answers.size() + " outcomes for " + toSend.size());
            }
        }
        return CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0])).thenApply(ignored -> {
            List<PublishResult> results = new ArrayList<>(plans.length);
            int next = 0;
            for (Injections.Fate plan : plans) {
                results.add(plan != Injections.Fate.SEND ? null
                        : target == null ? PublishResult.published() : answers.get(next++).join());
            }
            return results;
        });
    }

    /** Records the deliveries and turns them into what the relay is told; runs the crash last. */
    private List<PublishResult> settle(List<OutboxRecord> records, Injections.Plan plan, List<PublishResult> sent) {
        Injections.Fate[] plans = plan.fates();
        List<PublishResult> results = new ArrayList<>(plans.length);
        List<OutboxRecord> delivered = new ArrayList<>();
        boolean crashNow = false;
        for (int i = 0; i < plans.length; i++) {
            OutboxRecord r = records.get(i);
            switch (plans[i]) {
                case FAIL -> results.add(PublishResult.retry(INJECTED_FAILURE));
                case REJECT -> results.add(PublishResult.dead(INJECTED_REJECTION));
                case SEND -> {
                    PublishResult answer = sent.get(i);
                    if (answer.kind() != PublishResult.Kind.PUBLISHED) {
                        results.add(answer);
                        continue;
                    }
                    String refused = deliver(r);
                    if (refused != null) {
                        results.add(PublishResult.retry(refused));
                        continue;
                    }
                    delivered.add(r);
                    crashNow |= plan.crash()[i];
                    results.add(plan.loseAck()[i] ? PublishResult.retry(LOST_ACK) : answer);
                }
            }
        }
        if (crashNow) {
            Consumer<List<OutboxRecord>> hook = crash;
            if (hook == null) {
                throw new IllegalStateException("crashAfterPublish needs a relay built by a RelayDriver: nothing can"
                        + " cut this relay off its database");
            }
            down = true;
            hook.accept(List.copyOf(delivered));
        }
        return results;
    }

    /** Hands {@code r} to the consumers and records it; returns why it was not delivered, or null. */
    private String deliver(OutboxRecord r) {
        int copy;
        synchronized (lock) {
            copy = copies.getOrDefault(r.eventNo(), 0) + 1;
        }
        Delivery d = new Delivery(r, copy);
        for (Consumer<Delivery> c : consumers) {
            try {
                c.accept(d);
            } catch (RuntimeException | Error e) {
                return "consumer failed: " + e;
            }
        }
        synchronized (lock) {
            int n = copies.merge(r.eventNo(), 1, Integer::sum);
            deliveries.add(new Delivery(r, n));
            lock.notifyAll();
        }
        return null;
    }

    private static int atLeastZero(String name, int n) {
        if (n < 0) {
            throw new IllegalArgumentException(name + " must not be negative (was " + n + ")");
        }
        return n;
    }
}
