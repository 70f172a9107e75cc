package dev.postbox.bench;

import dev.postbox.Postbox;
import dev.postbox.message.MessageEvent;
import dev.postbox.outbox.OutboxEvent;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Locale;

/**
 * A producer's unit of work: one transaction that inserts a business row into {@code bench_order} and
 * writes its event (or, {@link #businessOnly}, the row alone), then commits. Event {@code seq} gets event_no {@code E-<seq>}; the caller picks the
 * aggregate, and must give each aggregate to one thread only so that id order equals commit order.
 * Thread-safe.
 */
final class EventWriter {

    static final String EVENT_NO_PREFIX = "E-";
    /** The topic of every bench event. */
    static final String TOPIC = "order.event";

    private final Postbox postbox;
    private final DataSource pool;
    /** A message event ({@code messages().create}) instead of an outbox event. */
    private final boolean message;
    private final String insertOrder = "INSERT INTO " + BenchContext.ORDERS + " (id, aggregate_id, amount) VALUES (?, ?, ?)";

    /** Writes each business row with its event through {@code postbox}. */
    EventWriter(Postbox postbox, DataSource pool) {
        this(postbox, pool, false);
    }

    /** Writes each business row with its event through {@code postbox}: a message event when {@code message}. */
    EventWriter(Postbox postbox, DataSource pool, boolean message) {
        this.postbox = postbox;
        this.pool = pool;
        this.message = message;
    }

    private EventWriter(DataSource pool) {
        this(null, pool, false);
    }

    /** The same business transaction without the event: the ceiling of the write path with one. */
    static EventWriter businessOnly(DataSource pool) {
        return new EventWriter(pool);
    }

    /**
     * Commits event {@code seq} of {@code aggregateId} with its business row (or the row alone, see
     * {@link #businessOnly}); returns how long the {@code commit()} call took, in nanoseconds.
     */
    long write(long seq, String aggregateId) throws SQLException {
        try (Connection c = pool.getConnection()) {
            try {
                try (PreparedStatement ps = c.prepareStatement(insertOrder)) {
                    ps.setLong(1, seq);
                    ps.setString(2, aggregateId);
                    ps.setInt(3, (int) (seq % 1000) + 1);
                    ps.executeUpdate();
                }
                if (postbox != null && message) {
                    postbox.messages().create(c, messageEvent(seq, aggregateId));
                } else if (postbox != null) {
                    postbox.outbox().write(c, event(seq, aggregateId));
                }
                long before = System.nanoTime();
                c.commit();
                return System.nanoTime() - before;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /**
     * Event {@code seq} of {@code aggregateId} as a real service would write it, so that rows, indexes, the
     * relay's reading and a broker's message are the size they are in production rather than a few bytes:
     * a JSON order of about 400 bytes ({@link #payload}), two headers, a trace id and a routing key (stable
     * per aggregate, so a routing transport keeps an aggregate on one route).
     */
    static OutboxEvent event(long seq, String aggregateId) {
        long h = mix(seq);
        return builder(seq, aggregateId).traceId(String.format(Locale.ROOT, "%016x%016x", h, mix(h))).build();
    }

    /**
     * Event {@code seq} as a traced application writes it (no trace id of its own): the same headers followed by the
     * create span's {@code context}, whose trace id becomes the event's.
     */
    static OutboxEvent event(long seq, String aggregateId, TracedPostbox.CreateContext context) {
        return builder(seq, aggregateId).headers(context.headers()).traceId(context.traceId()).build();
    }

    /** Event {@code seq} as a message event (seed 000's message table): the same payload and trace id. */
    static MessageEvent messageEvent(long seq, String aggregateId) {
        long h = mix(seq);
        return MessageEvent.builder().eventNo(EVENT_NO_PREFIX + seq).eventType("ORDER_CHANGED").biz("ORDER", aggregateId)
                .source("bench").payload(payload(seq, aggregateId))
                .traceId(String.format(Locale.ROOT, "%016x%016x", h, mix(h))).build();
    }

    private static OutboxEvent.Builder builder(long seq, String aggregateId) {
        long h = mix(seq);
        return OutboxEvent.builder().eventNo(EVENT_NO_PREFIX + seq).aggregate("ORDER", aggregateId)
                .eventType("ORDER_CHANGED").channel("MQ").topic(TOPIC)
                .routingKey("order." + REGIONS[Math.floorMod(aggregateId.hashCode(), REGIONS.length)] + ".changed")
                .header("tenant-id", "tenant-" + (h >>> 59))
                .header("schema", "order-changed/v3")
                .payload(payload(seq, aggregateId));
    }

    private static final String[] REGIONS = {"eu", "us", "apac", "latam"};
    private static final String[] SKUS = {"BOOK", "MUG", "SHIRT", "LAMP", "PEN", "BAG", "CAP", "SOCK"};

    /**
     * An order of 3 or 4 line items with amounts, a customer, an address and a status, generated from
     * {@code seq} alone (no two seqs give the same text): 365 to 435 UTF-8 bytes, 398 on average.
     */
    static String payload(long seq, String aggregateId) {
        long h = mix(seq);
        int lines = 3 + (int) ((h >>> 8) % 2);
        StringBuilder b = new StringBuilder(480);
        b.append("{\"orderId\":\"").append(aggregateId).append("\",\"seq\":").append(seq)
                .append(",\"customerId\":\"C-").append(100_000 + (h >>> 40) % 900_000)
                .append("\",\"status\":\"").append(STATUSES[(int) ((h >>> 4) % STATUSES.length)])
                .append("\",\"currency\":\"EUR\",\"lines\":[");
        long totalCents = 0;
        for (int i = 0; i < lines; i++) {
            long g = mix(h + i);
            int qty = 1 + (int) (g % 5);
            long cents = 199 + (g >>> 16) % 19_800;
            totalCents += qty * cents;
            b.append(i == 0 ? "" : ",").append("{\"sku\":\"").append(SKUS[(int) ((g >>> 8) % SKUS.length)]).append('-')
                    .append(10_000 + (g >>> 32) % 90_000).append("\",\"qty\":").append(qty)
                    .append(",\"unitPrice\":").append(cents / 100).append('.').append(two(cents % 100)).append('}');
        }
        b.append("],\"total\":").append(totalCents / 100).append('.').append(two(totalCents % 100))
                .append(",\"shipTo\":{\"country\":\"").append(COUNTRIES[(int) ((h >>> 20) % COUNTRIES.length)])
                .append("\",\"postcode\":\"").append(10_000 + (h >>> 24) % 90_000)
                .append("\",\"method\":\"STANDARD\"},\"salesChannel\":\"web\",\"placedAt\":\"2026-11-")
                .append(two(1 + (h >>> 12) % 28)).append("T").append(two((h >>> 16) % 24)).append(':')
                .append(two((h >>> 28) % 60)).append(":00Z\"}");
        return b.toString();
    }

    private static final String[] STATUSES = {"PLACED", "PAID", "PACKED", "SHIPPED"};
    private static final String[] COUNTRIES = {"DE", "FR", "NL", "US", "JP", "BR"};

    private static String two(long v) {
        return v < 10 ? "0" + v : Long.toString(v);
    }

    /** SplitMix64's finalizer: a fixed, well-spread hash of {@code v} (non-negative result). */
    private static long mix(long v) {
        long z = v + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return (z ^ (z >>> 31)) >>> 1;
    }

    /** The seq of an event written here. */
    static long seq(String eventNo) {
        if (eventNo == null || !eventNo.startsWith(EVENT_NO_PREFIX)) {
            throw new IllegalArgumentException("not an event_no the bench wrote (" + EVENT_NO_PREFIX + "<seq>): " + eventNo);
        }
        try {
            return Long.parseLong(eventNo.substring(EVENT_NO_PREFIX.length()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an event_no the bench wrote (" + EVENT_NO_PREFIX + "<seq>): " + eventNo, e);
        }
    }
}
