package dev.postbox.relay;

import dev.postbox.common.ValidationException;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Which publisher sends which event: by {@code publish_channel}, optionally narrowed to one
 * {@code topic}. An event with no route goes DEAD with that reason instead of being retried forever.
 * Built once, then immutable and thread-safe; it is itself a {@link Publisher} that splits a batch by
 * route and reassembles the outcomes in order. Its {@linkplain #orderLane order lane} is the routed
 * publisher's, tagged with that publisher: the events of one call that share a lane all go to that one
 * publisher, in their order, so its promises carry over; an event routed to another publisher is in
 * another lane, and so in a later call than its aggregate's earlier event.
 */
public final class Routes implements Publisher {

    private final Map<String, Publisher> byChannel;
    private final Map<String, Publisher> byChannelAndTopic;

    private Routes(Builder b) {
        this.byChannel = Map.copyOf(b.byChannel);
        this.byChannelAndTopic = Map.copyOf(b.byChannelAndTopic);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Every event of channel {@code channel} goes to {@code publisher}. */
    public static Routes of(String channel, Publisher publisher) {
        return builder().channel(channel, publisher).build();
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private final Map<String, Publisher> byChannel = new HashMap<>();
        private final Map<String, Publisher> byChannelAndTopic = new HashMap<>();

        /** Events of {@code channel} (any topic without its own route) go to {@code publisher}. */
        public Builder channel(String channel, Publisher publisher) {
            require(channel, publisher);
            byChannel.put(channel, publisher);
            return this;
        }

        /** Events of {@code channel} and {@code topic} go to {@code publisher}. */
        public Builder topic(String channel, String topic, Publisher publisher) {
            require(channel, publisher);
            if (topic == null || topic.isBlank()) {
                throw new ValidationException("routes.topic", "must not be blank");
            }
            byChannelAndTopic.put(channel + "\u0000" + topic, publisher);
            return this;
        }

        private static void require(String channel, Publisher publisher) {
            if (channel == null || channel.isBlank()) {
                throw new ValidationException("routes.channel", "must not be blank");
            }
            if (publisher == null) {
                throw new ValidationException("routes.publisher", "is required for channel " + channel);
            }
        }

        public Routes build() {
            if (byChannel.isEmpty() && byChannelAndTopic.isEmpty()) {
                throw new ValidationException("routes", "must route at least one channel");
            }
            return new Routes(this);
        }
    }

    Publisher route(OutboxRecord r) {
        Publisher p = r.topic() == null ? null : byChannelAndTopic.get(r.channel() + "\u0000" + r.topic());
        return p != null ? p : byChannel.get(r.channel());
    }

    /** The routes for the console: {@code channel[/topic] -> publisher class}, sorted. */
    String describe() {
        java.util.TreeSet<String> out = new java.util.TreeSet<>();
        byChannel.forEach((channel, p) -> out.add(channel + " -> " + p.getClass().getName()));
        byChannelAndTopic.forEach((key, p) -> out.add(key.replace('\u0000', '/') + " -> " + p.getClass().getName()));
        return String.join(", ", out);
    }

    /** A lane of one routed publisher. */
    private record Lane(Publisher publisher, Object lane) {
    }

    /** The routed publisher's lane, tagged with that publisher; null without a route or without its lane. */
    @Override
    public Object orderLane(OutboxRecord event) {
        Publisher p = route(event);
        Object lane = p == null ? null : p.orderLane(event);
        return lane == null ? null : new Lane(p, lane);
    }

    /** The routed publisher's destination of {@code event}; null when no route takes it. */
    @Override
    public dev.postbox.spi.Destination destination(OutboxRecord event) {
        Publisher p = route(event);
        return p == null ? null : p.destination(event);
    }

    @Override
    public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
        @SuppressWarnings("unchecked")
        CompletionStage<PublishResult>[] out = new CompletionStage[records.size()];
        Map<Publisher, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < records.size(); i++) {
            Publisher p = route(records.get(i));
            if (p == null) {
                OutboxRecord r = records.get(i);
                out[i] = CompletableFuture.completedFuture(PublishResult.dead("no publisher for channel '" + r.channel()
                        + "'" + (r.topic() == null ? "" : " and topic '" + r.topic() + "'")));
            } else {
                groups.computeIfAbsent(p, k -> new ArrayList<>()).add(i);
            }
        }
        for (Map.Entry<Publisher, List<Integer>> g : groups.entrySet()) {
            List<OutboxRecord> batch = new ArrayList<>(g.getValue().size());
            for (int i : g.getValue()) {
                batch.add(records.get(i));
            }
            List<CompletionStage<PublishResult>> results;
            try {
                results = g.getKey().publish(batch);
            } catch (Throwable e) {
                results = failedAll(batch.size(), e); // one route's failure must not take the others' outcomes
            }
            if (results == null || results.size() != batch.size()) {
                results = failedAll(batch.size(), new IllegalStateException("publisher returned "
                        + (results == null ? "null" : results.size() + " outcomes") + " for " + batch.size() + " events"));
            }
            for (int k = 0; k < batch.size(); k++) {
                out[g.getValue().get(k)] = results.get(k);
            }
        }
        return Arrays.asList(out);
    }

    private static List<CompletionStage<PublishResult>> failedAll(int n, Throwable e) {
        List<CompletionStage<PublishResult>> failed = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            failed.add(CompletableFuture.failedFuture(e));
        }
        return failed;
    }
}
