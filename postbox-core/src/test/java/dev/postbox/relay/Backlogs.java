package dev.postbox.relay;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;

/** Backlogs of realistic events for the plan tests: written in committed chunks, as an application would. */
final class Backlogs {

    private Backlogs() {
    }

    /**
     * {@code events} events round-robin over {@code aggregates} aggregates of type ORDER, event numbers
     * {@code F-0..}, each payload about {@code bytes} long (on a table of tiny rows a sequential scan is the
     * planner's fair choice for a few hundred ids, whatever the statistics).
     */
    static void write(Postbox postbox, DataSource ds, int events, int aggregates, int bytes) throws Exception {
        String pad = "x".repeat(bytes - 30);
        List<OutboxEvent> batch = new ArrayList<>();
        for (int i = 0; i < events; i++) {
            batch.add(OutboxEvent.builder().eventNo("F-" + i).aggregate("ORDER", "A" + (i % aggregates))
                    .eventType("ORDER_CHANGED").channel("MQ").topic("order.event")
                    .payload("{\"seq\":" + i + ",\"pad\":\"" + pad + "\"}").build());
            if (batch.size() == 1000 || i == events - 1) {
                try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    postbox.outbox().writeAll(c, batch);
                    c.commit();
                }
                batch.clear();
            }
        }
    }
}
