package dev.postbox.relay;

import dev.postbox.outbox.OutboxStatus;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class PostgresRelayTest extends RelayContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }

    /**
     * The known trap: {@code UPDATE ... WHERE id IN (SELECT ... LIMIT n FOR UPDATE SKIP LOCKED)} may lock
     * and update more than n rows when the planner re-runs or flattens the subquery. The claim keeps the
     * limit inside a CTE, evaluated once, with the Limit directly above LockRows: rows are locked one by
     * one only until n are held.
     */
    @Test
    void claimPlanLimitsBeforeItLocksAndUpdatesOnlyThoseRows() throws Exception {
        writeEvents(5_000, 5_000, "order.event");
        exec("ANALYZE " + postbox.tables().outbox());
        PostgresClaimer claimer = (PostgresClaimer) Claimer.forDialect(postbox.dialect(), postbox.tables().outbox(), true, Set.of());
        List<String> plan = new ArrayList<>();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + claimer.sql)) {
                Instant now = clock.instant();
                postbox.dialect().bindTime(ps, 1, now);
                postbox.dialect().bindTime(ps, 2, now);
                ps.setInt(3, 100);
                ps.setString(4, "x");
                ps.setString(5, "relay-1");
                postbox.dialect().bindTime(ps, 6, now);
                postbox.dialect().bindTime(ps, 7, now);
                postbox.dialect().bindTime(ps, 8, now);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        plan.add(rs.getString(1));
                    }
                }
            }
            c.rollback();
        }
        System.out.println(String.join("\n", plan));
        String text = String.join("\n", plan);
        int cte = indexOf(plan, "CTE c");
        int limit = indexOf(plan, "->  Limit");
        int lockRows = indexOf(plan, "->  LockRows");
        assertThat(cte).as("candidates in a CTE:%n%s", text).isGreaterThanOrEqualTo(0);
        assertThat(limit).as("Limit inside the CTE:%n%s", text).isGreaterThan(cte);
        assertThat(lockRows).as("LockRows right under the Limit:%n%s", text).isEqualTo(limit + 1);
        assertThat(text).contains("biz_outbox_event_idx_unfinished").doesNotContain("Seq Scan on biz_outbox_event e");
        assertThat(text).contains("CTE Scan on c").contains("Index Scan using biz_outbox_event_pk on biz_outbox_event u")
                .doesNotContain("Seq Scan on biz_outbox_event u");

        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertThat(claimer.claim(c, 100, "relay-1", clock.instant(), clock.instant().plusSeconds(60))).hasSize(100);
            c.commit();
        }
        assertThat(countStatus(OutboxStatus.PUBLISHING)).as("exactly the limit, never more").isEqualTo(100);
    }

    private static int indexOf(List<String> plan, String node) {
        for (int i = 0; i < plan.size(); i++) {
            if (plan.get(i).contains(node)) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void theRelaysOwnConnectionsCommitAsynchronouslyAndPlanPerExecution() throws Exception {
        try (Relay relay = relay(to(new Receiver()), "relay-1").build();
             Relay strict = relay(to(new Receiver()), "relay-2").asyncCommit(false).build()) {
            assertThat(setting(relay, "synchronous_commit")).isEqualTo("off");
            assertThat(setting(relay, "plan_cache_mode")).isEqualTo("force_custom_plan");
            assertThat(setting(strict, "synchronous_commit")).isEqualTo("on");
        }
        try (Connection c = ds.getConnection()) {
            assertThat(show(c, "synchronous_commit")).as("the application's connections are untouched").isEqualTo("on");
        }
    }

    private static String setting(Relay relay, String name) throws Exception {
        try (Connection c = relay.pool().getConnection()) {
            return show(c, name);
        }
    }

    private static String show(Connection c, String name) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("SELECT current_setting(?)")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    /**
     * An application pool that is not HikariCP (here DBCP): the relay's own pool wraps it, so the relay's
     * sessions are the application's. When the relay stops they go back with asynchronous commit off again
     * (an application transaction on one of them would otherwise be acknowledged before it is durable), the
     * default plan cache mode and no LISTEN.
     */
    @Test
    void aStoppedRelayGivesTheSessionsOfAnotherPoolBackAsItFoundThem() throws Exception {
        try (org.apache.commons.dbcp2.BasicDataSource app = applicationPool()) {
            dev.postbox.Postbox live = dev.postbox.Postbox.builder(app).clock(java.time.Clock.systemUTC()).source("test-service").build();
            try (Relay relay = live.relay(to(new Receiver())).instanceId("on-dbcp").asyncCommit(true).start()) {
                publishOne(live, "D-1");
                assertThat(app.getNumActive()).as("the relay holds sessions of the application's pool").isPositive();
            }
            assertSessionsClean(live, app);
        }
    }

    /** The same when the application hands the relay its pool to use as it is. */
    @Test
    void aStoppedRelayGivesTheListenSessionOfAGivenPoolBackListeningToNothing() throws Exception {
        try (org.apache.commons.dbcp2.BasicDataSource app = applicationPool()) {
            dev.postbox.Postbox live = dev.postbox.Postbox.builder(app).clock(java.time.Clock.systemUTC()).source("test-service").build();
            try (Relay relay = live.relay(to(new Receiver())).instanceId("given-dbcp").dataSource(app).start()) {
                publishOne(live, "G-1");
            }
            assertSessionsClean(live, app);
        }
    }

    private org.apache.commons.dbcp2.BasicDataSource applicationPool() {
        org.apache.commons.dbcp2.BasicDataSource app = new org.apache.commons.dbcp2.BasicDataSource();
        app.setUrl(db.jdbcUrl());
        app.setUsername(db.user());
        app.setMaxTotal(APP_POOL);
        return app;
    }

    private static final int APP_POOL = 6;

    private long published(dev.postbox.Postbox live) throws Exception {
        return queryLong("SELECT COUNT(*) FROM " + live.tables().outbox() + " WHERE publish_status = "
                + OutboxStatus.PUBLISHED.code());
    }

    private void publishOne(dev.postbox.Postbox live, String eventNo) throws Exception {
        long before = published(live);
        inTx(c -> live.outbox().write(c, dev.postbox.outbox.OutboxEvent.builder().eventNo(eventNo)
                .aggregate("ORDER", eventNo).eventType("X").channel("MQ").payload("{}").build()));
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(5).toNanos();
        while (published(live) == before && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(published(live)).as("published").isEqualTo(before + 1);
    }

    /** Every session the application's pool can hold: as a fresh one, holding no notification. */
    private void assertSessionsClean(dev.postbox.Postbox live, org.apache.commons.dbcp2.BasicDataSource app) throws Exception {
        // a write after the stop notifies the channel a leftover LISTEN would still hear
        inTx(c -> live.outbox().write(c, dev.postbox.outbox.OutboxEvent.builder().eventNo("AFTER-STOP")
                .aggregate("ORDER", "AFTER").eventType("X").channel("MQ").payload("{}").build()));
        assertThat(app.getNumActive()).as("the relay gave back every session").isZero();
        assertThat(app.getNumIdle()).as("sessions the relay used, back in the pool").isPositive();
        List<Connection> all = new ArrayList<>();
        try {
            for (int i = 0; i < APP_POOL; i++) {
                all.add(app.getConnection());
            }
            for (Connection c : all) {
                try (java.sql.Statement st = c.createStatement();
                     ResultSet rs = st.executeQuery("SELECT current_setting('synchronous_commit'),"
                             + " current_setting('plan_cache_mode'), (SELECT COUNT(*) FROM pg_listening_channels())")) {
                    rs.next();
                    assertThat(rs.getString(1)).as("synchronous_commit of a pooled session").isEqualTo("on");
                    assertThat(rs.getString(2)).as("plan_cache_mode of a pooled session").isEqualTo("auto");
                    assertThat(rs.getLong(3)).as("channels a pooled session listens to").isZero();
                }
                org.postgresql.PGNotification[] held = c.unwrap(org.postgresql.PGConnection.class).getNotifications(200);
                assertThat(held == null ? 0 : held.length).as("notifications a pooled session holds").isZero();
            }
        } finally {
            for (Connection c : all) {
                c.close();
            }
        }
    }

    @Test
    void aNotifyAtCommitWakesAListeningRelayLongBeforeItsNextPoll() throws Exception {
        dev.postbox.Postbox live = newPostbox(b -> b.clock(java.time.Clock.systemUTC()));
        Receiver receiver = new Receiver();
        java.util.Map<String, Long> received = new java.util.concurrent.ConcurrentHashMap<>();
        dev.postbox.spi.Publisher timed = records -> {
            records.forEach(r -> received.put(r.eventNo(), System.nanoTime()));
            return to(receiver).publish(records);
        };
        try (Relay relay = live.relay(timed).instanceId("listener").pollInterval(java.time.Duration.ofSeconds(5),
                java.time.Duration.ofSeconds(5)).start()) {
            Thread.sleep(500); // let it LISTEN and settle into its 5 s poll
            List<Long> latenciesMs = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                String eventNo = "N-" + i;
                inTx(c -> live.outbox().write(c, dev.postbox.outbox.OutboxEvent.builder().eventNo(eventNo)
                        .aggregate("ORDER", eventNo).eventType("X").channel("MQ").payload("{}").build()));
                long committed = System.nanoTime();
                long deadline = committed + java.time.Duration.ofSeconds(3).toNanos();
                while (!received.containsKey(eventNo) && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                assertThat(received).as("event " + i + " arrived before the next poll").containsKey(eventNo);
                latenciesMs.add((received.get(eventNo) - committed) / 1_000_000);
                Thread.sleep(50);
            }
            System.out.println("commit -> publish with NOTIFY (ms): " + latenciesMs);
            assertThat(latenciesMs).allMatch(ms -> ms < 1000);
        }
    }

    @Test
    void withoutNotifyARelayWaitsForItsPollOrAnInProcessHint() throws Exception {
        dev.postbox.Postbox quiet = newPostbox(b -> b.clock(java.time.Clock.systemUTC()).notifyOnWrite(false));
        Receiver receiver = new Receiver();
        try (Relay relay = quiet.relay(to(receiver)).instanceId("poller").pollInterval(java.time.Duration.ofSeconds(5),
                java.time.Duration.ofSeconds(5)).start()) {
            Thread.sleep(500);
            inTx(c -> quiet.outbox().write(c, dev.postbox.outbox.OutboxEvent.builder().eventNo("Q-1")
                    .aggregate("ORDER", "Q").eventType("X").channel("MQ").payload("{}").build()));
            Thread.sleep(1000);
            assertThat(receiver.distinct()).as("no NOTIFY, no hint: still waiting for the 5 s poll").isZero();
            quiet.wakeRelays();
            long deadline = System.nanoTime() + java.time.Duration.ofSeconds(2).toNanos();
            while (receiver.distinct() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(receiver.distinct()).as("the same-JVM hint woke it").isEqualTo(1);
        }
    }

    @Test
    void writersNotifyOnlyTheRelaysOfTheirOwnSchema() throws Exception {
        try (dev.postbox.testing.TestDatabase other = dev.postbox.testing.TestDatabase.postgres(null)) {
            dev.postbox.Postbox otherBox = dev.postbox.Postbox.builder(other.dataSource()).source("other").build();
            otherBox.schema().install();
            assertThat(otherBox.tables().outbox()).isEqualTo(postbox.tables().outbox());
            try (java.sql.Connection listener = db.unpooledDataSource().getConnection(); java.sql.Connection elsewhere = other.dataSource().getConnection()) {
                listener.setAutoCommit(true);
                String channel = PgNotifications.channel(listener, postbox.tables().outbox());
                assertThat(channel).matches("postbox_[0-9a-f]{16}");
                assertThat(PgNotifications.channel(elsewhere, otherBox.tables().outbox()))
                        .as("same table name, other schema, other channel").isNotEqualTo(channel);
                try (java.sql.Statement st = listener.createStatement()) {
                    st.execute("LISTEN " + channel);
                }
                org.postgresql.PGConnection pg = listener.unwrap(org.postgresql.PGConnection.class);

                elsewhere.setAutoCommit(false);
                otherBox.outbox().write(elsewhere, dev.postbox.outbox.OutboxEvent.builder().eventNo("ELSEWHERE-1")
                        .aggregate("ORDER", "E").eventType("X").channel("MQ").payload("{}").build());
                elsewhere.commit();
                org.postgresql.PGNotification[] none = pg.getNotifications(700);
                assertThat(none == null ? 0 : none.length).as("a write in another schema wakes nobody here").isZero();

                inTx(c -> postbox.outbox().write(c, dev.postbox.outbox.OutboxEvent.builder().eventNo("HERE-1")
                        .aggregate("ORDER", "H").eventType("X").channel("MQ").payload("{}").build()));
                org.postgresql.PGNotification[] here = pg.getNotifications(5000);
                assertThat(here).as("a write in this schema notifies its channel").isNotNull().isNotEmpty();
                assertThat(here[0].getName()).isEqualTo(channel);
            }
        }
    }

    /**
     * A transaction that sent NOTIFY commits under a database-wide lock held through its WAL flush: with every
     * write notifying, that lock caps all writers. One NOTIFY per interval per Postbox; the writes in between
     * send none and are still published at once, by the relay the first one woke.
     */
    @Test
    void writesWithinTheNotifyIntervalSendOneNotificationAndAreAllPublishedLongBeforeTheNextPoll() throws Exception {
        dev.postbox.Postbox gated = newPostbox(b -> b.clock(java.time.Clock.systemUTC())
                .notifyInterval(java.time.Duration.ofSeconds(1)));
        dev.postbox.Postbox every = newPostbox(b -> b.clock(java.time.Clock.systemUTC())
                .notifyInterval(java.time.Duration.ZERO));
        try (Connection listener = db.unpooledDataSource().getConnection()) { // a session of its own: it LISTENs
            listener.setAutoCommit(true);
            String channel = PgNotifications.channel(listener, postbox.tables().outbox());
            try (java.sql.Statement st = listener.createStatement()) {
                st.execute("LISTEN " + channel);
            }
            org.postgresql.PGConnection pg = listener.unwrap(org.postgresql.PGConnection.class);
            for (int i = 0; i < 5; i++) {
                String eventNo = "G-" + i;
                inTx(c -> gated.outbox().write(c, event(eventNo)));
            }
            assertThat(notifications(pg)).as("five writes within one interval: one NOTIFY").isEqualTo(1);
            for (int i = 0; i < 5; i++) {
                String eventNo = "E-" + i;
                inTx(c -> every.outbox().write(c, event(eventNo)));
            }
            assertThat(notifications(pg)).as("interval zero: every write notifies").isEqualTo(5);
        }
        exec("DELETE FROM " + postbox.tables().outbox());

        java.util.Map<String, Long> received = new java.util.concurrent.ConcurrentHashMap<>();
        Receiver receiver = new Receiver();
        dev.postbox.spi.Publisher timed = records -> {
            records.forEach(r -> received.put(r.eventNo(), System.nanoTime()));
            return to(receiver).publish(records);
        };
        try (Relay relay = gated.relay(timed).instanceId("gated").pollInterval(java.time.Duration.ofMillis(10),
                java.time.Duration.ofSeconds(5)).start()) {
            Thread.sleep(6000); // past the writes above' interval, and idle at its 5 s poll
            inTx(c -> gated.outbox().write(c, event("FIRST")));  // notifies
            awaitReceived(received, "FIRST", 3000);
            long committed = System.nanoTime();
            inTx(c -> gated.outbox().write(c, event("SECOND"))); // within the interval: no NOTIFY
            awaitReceived(received, "SECOND", 3000);
            long ms = (received.get("SECOND") - committed) / 1_000_000;
            System.out.println("write without NOTIFY -> publish (ms): " + ms);
            assertThat(ms).as("found by the polls that follow a wake-up, not the 5 s poll").isLessThan(1000);
        }
    }

    private static dev.postbox.outbox.OutboxEvent event(String eventNo) {
        return dev.postbox.outbox.OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", eventNo).eventType("X")
                .channel("MQ").payload("{}").build();
    }

    private static int notifications(org.postgresql.PGConnection pg) throws Exception {
        int n = 0;
        org.postgresql.PGNotification[] got;
        while ((got = pg.getNotifications(700)) != null && got.length > 0) {
            n += got.length;
        }
        return n;
    }

    private static void awaitReceived(java.util.Map<String, Long> received, String eventNo, long ms) throws Exception {
        long deadline = System.nanoTime() + ms * 1_000_000;
        while (!received.containsKey(eventNo) && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(received).as(eventNo + " published").containsKey(eventNo);
    }
}
