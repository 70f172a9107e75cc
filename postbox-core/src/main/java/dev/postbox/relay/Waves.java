package dev.postbox.relay;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Publishes a claimed batch that may hold runs of one aggregate, in waves: an event is handed to the
 * publisher in the same call as the previous event of its aggregate when the publisher gives both the same
 * {@linkplain Publisher#orderLane order lane} (the publisher then keeps their order on the wire), and in
 * the next wave otherwise, started only when the previous wave is done; so without lanes wave n holds the
 * n-th claimed event of every aggregate, and with one lane for everything the whole batch is one call. No
 * event is handed over before the earlier events of its aggregate were published or are in the same call.
 * <p>
 * The failure rule of {@link Publisher}: in each aggregate the first event that is not published keeps its
 * outcome, and every later one of the batch is {@link #HELD} (its lease given back, no attempt counted),
 * also when the publisher reported it published in the same call (then it may have overtaken the failed
 * one on the target: it is sent again after it, with a WARN). An aggregate whose event goes DEAD unsent
 * sends nothing either. Each wave has its own send deadline; the leases stay safe because they are renewed
 * while the waves run ({@link LeaseKeeper}), and no further wave starts once close() began or the leases no
 * longer hold (its events' outcomes are unknown: their leases are given back). Unordered mode is one wave.
 */
final class Waves {

    private static final Logger log = LoggerFactory.getLogger(Relay.class);
    /** The outcome of an event not sent because an earlier event of its aggregate in the batch was not published. */
    static final PublishResult HELD = PublishResult.retry("held back behind an unpublished earlier event");

    private final RelayConfig config;
    private final Sender sender;
    private final LeaseKeeper keeper;
    private final BooleanSupplier closing;

    /** @param closing whether the relay's close() began: no wave starts after that */
    Waves(RelayConfig config, Sender sender, LeaseKeeper keeper, BooleanSupplier closing) {
        this.config = config;
        this.sender = sender;
        this.keeper = keeper;
        this.closing = closing;
    }

    /**
     * One outcome per event of {@code batch}, in order: null where it is unknown (not sent, or the send was
     * cut short by close()), {@link #HELD} where an earlier event of its aggregate was not published.
     *
     * @param notSent the events of the claim that go DEAD unsent: they stop their aggregates too
     */
    List<PublishResult> publish(List<OutboxRecord> batch, List<Leases.Failure> notSent) {
        int n = batch.size();
        int[] wave = new int[n];
        String[] key = new String[n];
        int waves = config.ordered() ? assign(batch, wave, key) : 1;
        Set<String> stopped = new HashSet<>();
        if (config.ordered()) {
            for (Leases.Failure f : notSent) {
                stopped.add(Followers.key(f.event().aggregateType(), f.event().aggregateId()));
            }
        }
        PublishResult[] out = new PublishResult[n];
        boolean unknown = false;
        for (int w = 0; w < waves; w++) {
            if (!unknown && (closing.getAsBoolean() || !keeper.holds())) {
                unknown = true; // closing, or the leases may be someone else's now: send nothing further
                if (!closing.getAsBoolean()) {
                    log.warn("Relay {}: leases of the batch in flight could not be renewed; giving back the events"
                            + " not sent yet", config.instanceId());
                }
            }
            List<Integer> members = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (wave[i] != w) {
                    continue;
                }
                if (unknown || (key[i] != null && stopped.contains(key[i]))) {
                    out[i] = unknown ? null : HELD;
                } else {
                    members.add(i);
                }
            }
            if (!members.isEmpty()) {
                unknown = send(batch, members, key, out, stopped);
            }
        }
        return Arrays.asList(out);
    }

    /**
     * Gives every event of an ordered topic its key and its wave: the wave of its aggregate's previous event
     * when both have the same lane, the next one otherwise; returns the number of waves.
     */
    private int assign(List<OutboxRecord> batch, int[] wave, String[] key) {
        Map<String, Integer> lastWave = new HashMap<>();
        Map<String, Object> lastLane = new HashMap<>();
        Publisher publisher = config.publisher();
        int waves = 1;
        for (int i = 0; i < batch.size(); i++) {
            OutboxRecord r = batch.get(i);
            if (Followers.isOrdered(r, config.unorderedTopics())) {
                key[i] = Followers.key(r.aggregateType(), r.aggregateId());
                Object lane = lane(publisher, r);
                Integer previous = lastWave.get(key[i]);
                wave[i] = previous == null ? 0
                        : lane != null && lane.equals(lastLane.get(key[i])) ? previous : previous + 1;
                lastWave.put(key[i], wave[i]);
                lastLane.put(key[i], lane);
                waves = Math.max(waves, wave[i] + 1);
            }
        }
        return waves;
    }

    /** The publisher's lane for {@code r}; null (a wave of its own) when it throws. */
    private Object lane(Publisher publisher, OutboxRecord r) {
        try {
            return publisher.orderLane(r);
        } catch (RuntimeException e) {
            log.debug("Relay {}: orderLane failed for event {}; sending it in a wave of its own: {}",
                    config.instanceId(), r.eventNo(), e.toString());
            return null;
        }
    }

    /**
     * Sends one wave with its own deadline and applies the failure rule to its outcomes (members are in batch
     * order); returns whether an outcome was unknown (closing).
     */
    private boolean send(List<OutboxRecord> batch, List<Integer> members, String[] key, PublishResult[] out,
                         Set<String> stopped) {
        long deadline = System.nanoTime() + config.sendTimeout().toNanos();
        keeper.busyUntil(deadline + LeaseKeeper.interval(config.lease()).toNanos());
        List<PublishResult> results = sender.publish(members.stream().map(batch::get).toList(), deadline);
        boolean unknown = false;
        int disbelieved = 0;
        for (int j = 0; j < members.size(); j++) {
            int i = members.get(j);
            PublishResult result = results.get(j);
            if (key[i] != null && stopped.contains(key[i])) { // behind a failure of its aggregate in this call
                out[i] = result == null ? null : HELD;
                if (result != null && result.kind() == PublishResult.Kind.PUBLISHED) {
                    disbelieved++;
                }
            } else {
                out[i] = result;
                if ((result == null || result.kind() != PublishResult.Kind.PUBLISHED) && key[i] != null) {
                    stopped.add(key[i]);
                }
            }
            if (result == null) {
                unknown = true; // closing: nothing further is sent
            }
        }
        if (disbelieved > 0) {
            log.warn("Relay {}: the publisher reported {} event(s) published behind an earlier event of their aggregate"
                    + " that was not, in the same call; they may have overtaken it: held and sent again after it (the"
                    + " consumer's inbox absorbs the duplicates)", config.instanceId(), disbelieved);
        }
        return unknown;
    }
}
