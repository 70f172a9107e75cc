package dev.postbox.id;

import dev.postbox.ValidationException;

import java.time.Clock;
import java.time.Instant;
import java.util.Objects;

/**
 * Time-ordered 64-bit ids in the snowflake layout: 1 sign bit (always 0), 41 bits of milliseconds since
 * {@link #EPOCH}, 10 bits of node id and 12 bits of sequence, so up to 4,096 ids per millisecond per node
 * until the year 2093.
 *
 * <p>Ids never go backwards: if the clock steps back, the generator keeps counting on its own last
 * timestamp (and logs nothing on the hot path); when a millisecond's 4,096 ids are used up it borrows
 * the next millisecond. Thread-safe; two generators with the same node id may collide, so each
 * process writing to the same table needs its own node id.
 */
public final class SnowflakeIdGenerator implements IdGenerator {

    /** 2024-01-01T00:00:00Z, the zero of the timestamp bits. */
    public static final Instant EPOCH = Instant.parse("2024-01-01T00:00:00Z");

    /** Largest node id (10 bits). */
    public static final int MAX_NODE_ID = 1023;

    private static final int SEQUENCE_BITS = 12;
    private static final int NODE_BITS = 10;
    private static final long SEQUENCE_MASK = (1L << SEQUENCE_BITS) - 1;

    private final Clock clock;
    private final long nodeBits;
    private final long epochMillis = EPOCH.toEpochMilli();
    private long lastMillis = -1;
    private long sequence;

    /**
     * @param nodeId 0..{@value #MAX_NODE_ID}, unique per writing process
     * @param clock  source of time; not null
     */
    public SnowflakeIdGenerator(int nodeId, Clock clock) {
        if (nodeId < 0 || nodeId > MAX_NODE_ID) {
            throw new ValidationException("nodeId", "must be between 0 and " + MAX_NODE_ID + " (was " + nodeId + ")");
        }
        this.clock = Objects.requireNonNull(clock, "clock");
        this.nodeBits = (long) nodeId << SEQUENCE_BITS;
    }

    @Override
    public synchronized long nextId() {
        long now = clock.millis() - epochMillis;
        if (now < 0) {
            throw new IllegalStateException("clock is before the id epoch " + EPOCH);
        }
        if (now > lastMillis) {
            lastMillis = now;
            sequence = 0;
        } else if (++sequence > SEQUENCE_MASK) {
            // the clock stood still or stepped back, and this millisecond is used up: borrow the next one
            lastMillis++;
            sequence = 0;
        }
        return (lastMillis << (SEQUENCE_BITS + NODE_BITS)) | nodeBits | sequence;
    }

    /** The instant encoded in an id produced by this layout. */
    public static Instant timeOf(long id) {
        return Instant.ofEpochMilli((id >>> (SEQUENCE_BITS + NODE_BITS)) + EPOCH.toEpochMilli());
    }

    /** The node id encoded in an id produced by this layout. */
    public static int nodeOf(long id) {
        return (int) ((id >>> SEQUENCE_BITS) & MAX_NODE_ID);
    }
}
