package dev.postbox.bench;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * A producer's unit of work: one transaction that inserts a business row into {@code bench_order} and
 * writes its event, then commits. Event {@code seq} gets event_no {@code E-<seq>}; the caller picks the
 * aggregate, and must give each aggregate to one thread only so that id order equals commit order.
 * Thread-safe.
 */
final class EventWriter {

    static final String EVENT_NO_PREFIX = "E-";
    /** The topic of every bench event. */
    static final String TOPIC = "order.event";

    private final Postbox postbox;
    private final DataSource pool;
    private final String insertOrder = "INSERT INTO " + BenchContext.ORDERS + " (id, aggregate_id, amount) VALUES (?, ?, ?)";

    EventWriter(Postbox postbox, DataSource pool) {
        this.postbox = postbox;
        this.pool = pool;
    }

    /** Commits event {@code seq} of {@code aggregateId} with its business row. */
    void write(long seq, String aggregateId) throws SQLException {
        try (Connection c = pool.getConnection()) {
            try {
                try (PreparedStatement ps = c.prepareStatement(insertOrder)) {
                    ps.setLong(1, seq);
                    ps.setString(2, aggregateId);
                    ps.setInt(3, (int) (seq % 1000) + 1);
                    ps.executeUpdate();
                }
                postbox.outbox().write(c, event(seq, aggregateId));
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    static OutboxEvent event(long seq, String aggregateId) {
        return OutboxEvent.builder().eventNo(EVENT_NO_PREFIX + seq).aggregate("ORDER", aggregateId)
                .eventType("ORDER_CHANGED").channel("MQ").topic(TOPIC)
                .payload("{\"seq\":" + seq + ",\"aggregate\":\"" + aggregateId + "\",\"amount\":" + (seq % 1000 + 1) + "}")
                .build();
    }

    /** The seq of an event written here. */
    static long seq(String eventNo) {
        return Long.parseLong(eventNo.substring(EVENT_NO_PREFIX.length()));
    }
}
