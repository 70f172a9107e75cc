package dev.postbox.bench;

import dev.postbox.outbox.OutboxRecord;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What a broker sink remembers of each event the relay handed it, so that what comes back from the broker
 * (the event_no only) can be checked by the {@link Receiver} against the outbox id and aggregate: 12 bytes
 * per seq (the id, and the aggregate as an index into the few aggregates seen), in pages of
 * {@value #PAGE} seqs made on first use. It replaced a map of the whole claimed rows by event_no, which
 * held every payload of a drain until its end (about 1.5 GB for 1,000,000 events). Thread-safe: relays
 * record while the sink's consumer threads look up.
 */
final class SentLog {

    static final int PAGE = 1 << 16;

    private record Page(AtomicLongArray ids, AtomicIntegerArray aggregates) {
    }

    private final Map<Long, Page> pages = new ConcurrentHashMap<>();
    private final Map<String, Integer> aggregateIndex = new ConcurrentHashMap<>();
    private final Map<Integer, String> aggregateKeys = new ConcurrentHashMap<>();

    /** Remembers {@code r} (an event the bench wrote, {@code E-<seq>}); recording it again is harmless. */
    void record(OutboxRecord r) {
        long seq = EventWriter.seq(r.eventNo());
        String key = Receiver.aggregateKey(r);
        // index + 1, so that 0 in a page means "never sent"
        int index = aggregateIndex.computeIfAbsent(key, k -> {
            synchronized (aggregateKeys) {
                int i = aggregateKeys.size() + 1;
                aggregateKeys.put(i, k);
                return i;
            }
        });
        Page page = pages.computeIfAbsent(seq / PAGE, k -> new Page(new AtomicLongArray(PAGE), new AtomicIntegerArray(PAGE)));
        int slot = (int) (seq % PAGE);
        page.ids().set(slot, r.id());
        page.aggregates().set(slot, index);
    }

    /**
     * Hands the delivery of {@code eventNo} to {@code receiver}; false (and nothing handed over) when it is
     * not an event the bench wrote or it was never sent, as for a message some earlier run left on the broker.
     */
    boolean deliver(String eventNo, Receiver receiver) {
        long seq;
        try {
            seq = EventWriter.seq(eventNo);
        } catch (IllegalArgumentException e) {
            return false;
        }
        Page page = pages.get(seq / PAGE);
        int slot = (int) (seq % PAGE);
        int index = page == null ? 0 : page.aggregates().get(slot);
        if (index == 0) {
            return false;
        }
        receiver.accept(seq, page.ids().get(slot), aggregateKeys.get(index));
        return true;
    }
}
