package dev.postbox.relay;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.testing.PrivatePostgres;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The proof that the relay's asynchronous commits ({@link RelayBuilder#asyncCommit}, on by default) lose
 * nothing: a private PostgreSQL cluster is crashed (immediate shutdown, WAL buffers lost) three times
 * while two relays drain it. Whatever relay commits the crashes swallowed, every event ends PUBLISHED,
 * reaches the receiver, and the first deliveries keep each aggregate's order.
 */
class PostgresCrashTest {

    private static final int EVENTS = 20_000;
    private static final int AGGREGATES = 200;

    @Test
    void relayCommitsLostInADatabaseCrashOnlyRepublishNeverLose() throws Exception {
        try (PrivatePostgres pg = PrivatePostgres.start()) {
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setUrl(pg.url());
            ds.setUser("postgres");
            Postbox postbox = Postbox.builder(ds).source("crash-test").build();
            postbox.schema().install();
            write(ds, postbox);

            Receiver receiver = new Receiver();
            List<Relay> relays = new ArrayList<>();
            try {
                for (int i = 0; i < 2; i++) {
                    relays.add(postbox.relay(RelayContract.to(receiver)).instanceId("crash-" + i).batchSize(200)
                            .leaseDuration(Duration.ofSeconds(3)).sendTimeout(Duration.ofSeconds(1))
                            .pollInterval(Duration.ofMillis(10), Duration.ofMillis(200)).build().start());
                }
                for (int crash = 1; crash <= 3; crash++) {
                    int target = crash * EVENTS / 5;
                    await(() -> receiver.distinct() >= target, Duration.ofSeconds(60), "deliveries before crash " + crash);
                    pg.crash();
                    Thread.sleep(300);
                    pg.startServer();
                }
                await(() -> published(ds) == EVENTS && receiver.distinct() == EVENTS, Duration.ofSeconds(120),
                        "every event published after the crashes");
            } finally {
                relays.forEach(Relay::close);
            }
            assertThat(receiver.distinct()).isEqualTo(EVENTS);
            assertThat(receiver.orderViolations()).isEmpty();
            assertThat(count(ds, "SELECT COUNT(*) FROM biz_outbox_event")).as("no event lost by the crashes").isEqualTo(EVENTS);
            assertThat(count(ds, "SELECT COUNT(*) FROM biz_outbox_event WHERE publish_status <> 2")).isZero();
            System.out.printf("PostgresCrashTest: %d events, 3 crashes, %d deliveries, %d re-published%n", EVENTS,
                    receiver.deliveries.size(), receiver.duplicates());
        }
    }

    private static void write(PGSimpleDataSource ds, Postbox postbox) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            List<OutboxEvent> batch = new ArrayList<>();
            for (int i = 0; i < EVENTS; i++) {
                batch.add(OutboxEvent.builder().eventNo("crash-" + i).aggregate("ORDER", "A" + (i % AGGREGATES))
                        .eventType("ORDER_CHANGED").channel("MQ").topic("orders").payload("{\"seq\":" + i + "}").build());
                if (batch.size() == 1000) {
                    postbox.outbox().writeAll(c, batch);
                    c.commit();
                    batch.clear();
                }
            }
        }
    }

    private static long published(PGSimpleDataSource ds) {
        try {
            return count(ds, "SELECT COUNT(*) FROM biz_outbox_event WHERE publish_status = 2");
        } catch (SQLException recovering) {
            return -1;
        }
    }

    private static long count(PGSimpleDataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void await(BooleanSupplier condition, Duration timeout, String what) {
        dev.postbox.testing.Await.until(what, timeout, condition);
    }
}
