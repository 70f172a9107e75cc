package dev.postbox.relay;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The in-process event bus for channel {@code EVENT_BUS}: delivers each event to the subscribers of its
 * topic (and to those of {@link #ALL_TOPICS}) on the relay's thread, after the event committed. A
 * subscriber that throws makes the event fail and be retried (every subscriber sees it again, so
 * subscribers must be idempotent, as with any broker); so does an {@link Error} (an AssertionError, a
 * NoClassDefFoundError): it is the event's recorded failure with the error as reason, and the relay goes
 * on. An event that no subscriber receives (no subscriber for its topic, none for {@link #ALL_TOPICS})
 * is not published: it fails with the reason {@code no subscriber for topic 'X'} and is retried with the
 * relay's backoff, so that a subscriber registered a moment after the relay started still gets it, and
 * a topic nobody subscribes to (a typo) ends DEAD, visible with that reason, once its retries are used
 * up. Thread-safe.
 */
public final class EventBus implements Publisher {

    /** The channel whose events an application usually routes to the in-process bus. */
    public static final String CHANNEL = "EVENT_BUS";

    /** Subscribe with this topic to receive every event. */
    public static final String ALL_TOPICS = "*";

    /** What becomes of an event that no subscriber receives. */
    public enum NoSubscriber {
        /** Failed and retried with the relay's backoff; DEAD once the retries are used up. */
        RETRY,
        /** DEAD at once. */
        DEAD,
        /** PUBLISHED: nobody needed it. */
        DISCARD
    }

    private final Map<String, List<Consumer<OutboxRecord>>> subscribers = new ConcurrentHashMap<>();
    private final NoSubscriber whenNoSubscriber;

    /** A bus that retries an event without subscriber ({@link NoSubscriber#RETRY}). */
    public EventBus() {
        this(NoSubscriber.RETRY);
    }

    /** A bus with the given policy for an event that no subscriber receives. */
    public EventBus(NoSubscriber whenNoSubscriber) {
        this.whenNoSubscriber = Objects.requireNonNull(whenNoSubscriber, "whenNoSubscriber");
    }

    /** What becomes of an event that no subscriber receives. */
    public NoSubscriber whenNoSubscriber() {
        return whenNoSubscriber;
    }

    /** Adds {@code subscriber} for events of {@code topic}; returns this bus. */
    public EventBus subscribe(String topic, Consumer<OutboxRecord> subscriber) {
        subscribers.computeIfAbsent(Objects.requireNonNull(topic, "topic"), t -> new CopyOnWriteArrayList<>())
                .add(Objects.requireNonNull(subscriber, "subscriber"));
        return this;
    }

    /** Removes {@code subscriber} from {@code topic} (the same instance given to {@link #subscribe}); true if it was there. */
    public boolean unsubscribe(String topic, Consumer<OutboxRecord> subscriber) {
        List<Consumer<OutboxRecord>> list = subscribers.get(Objects.requireNonNull(topic, "topic"));
        return list != null && list.remove(Objects.requireNonNull(subscriber, "subscriber"));
    }

    @Override
    public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
        return deliver(records);
    }

    /** The in-process bus ({@code postbox}), the event's topic. */
    @Override
    public dev.postbox.spi.Destination destination(OutboxRecord event) {
        return new dev.postbox.spi.Destination(dev.postbox.tracing.SpanRequest.POSTBOX_SYSTEM, event.topic());
    }

    private List<CompletionStage<PublishResult>> deliver(List<OutboxRecord> records) {
        List<CompletionStage<PublishResult>> results = new ArrayList<>(records.size());
        for (OutboxRecord r : records) {
            results.add(CompletableFuture.completedFuture(deliver(r)));
        }
        return results;
    }

    private PublishResult deliver(OutboxRecord r) {
        List<Consumer<OutboxRecord>> forTopic = subscribers.getOrDefault(r.topic() == null ? "" : r.topic(), List.of());
        List<Consumer<OutboxRecord>> forAll = subscribers.getOrDefault(ALL_TOPICS, List.of());
        if (forTopic.isEmpty() && forAll.isEmpty()) {
            return switch (whenNoSubscriber) {
                case RETRY -> PublishResult.retry(noSubscriber(r.topic()));
                case DEAD -> PublishResult.dead(noSubscriber(r.topic()));
                case DISCARD -> PublishResult.published();
            };
        }
        try {
            for (Consumer<OutboxRecord> s : forTopic) {
                s.accept(r);
            }
            for (Consumer<OutboxRecord> s : forAll) {
                s.accept(r);
            }
            return PublishResult.published();
        } catch (Throwable e) { // an Error of a subscriber is this event's failure, never the relay thread's end
            return PublishResult.retry("subscriber failed: " + e);
        }
    }

    /** The failure reason of an event that no subscriber receives. */
    static String noSubscriber(String topic) {
        return "no subscriber for topic '" + (topic == null ? "" : topic) + "'";
    }
}
