package dev.postbox.bench;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The set of event seqs seen so far, one bit per seq: a 1,000,000-event drain costs 125 KB here where a set
 * of the event_no strings cost about 100 MB and kept the bench itself from draining a large backlog in a
 * small heap. Seqs are non-negative longs; bits live in pages of {@value #PAGE_BITS} seqs, created on first
 * use, so sparse seqs (SqlLimit's, far above the drain's) cost a page each, not the gap between them.
 * Thread-safe and lock-free: {@link #add} is one compare-and-set on the seq's word.
 */
final class SeqSet {

    static final int PAGE_BITS = 1 << 20;
    private static final int WORDS_PER_PAGE = PAGE_BITS / Long.SIZE;

    private final ConcurrentHashMap<Long, AtomicLongArray> pages = new ConcurrentHashMap<>();

    /** Adds {@code seq}; true when it was not in the set yet. */
    boolean add(long seq) {
        if (seq < 0) {
            throw new IllegalArgumentException("seq must be >= 0 (was " + seq + ")");
        }
        AtomicLongArray page = pages.computeIfAbsent(seq / PAGE_BITS, k -> new AtomicLongArray(WORDS_PER_PAGE));
        int bit = (int) (seq % PAGE_BITS);
        int word = bit / Long.SIZE;
        long mask = 1L << (bit % Long.SIZE);
        while (true) {
            long old = page.get(word);
            if ((old & mask) != 0) {
                return false;
            }
            if (page.compareAndSet(word, old, old | mask)) {
                return true;
            }
        }
    }

    boolean contains(long seq) {
        AtomicLongArray page = seq < 0 ? null : pages.get(seq / PAGE_BITS);
        int bit = (int) (seq % PAGE_BITS);
        return page != null && (page.get(bit / Long.SIZE) & (1L << (bit % Long.SIZE))) != 0;
    }
}
