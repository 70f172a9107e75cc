package dev.postbox.server;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.server.config.ConfigLoader;
import dev.postbox.server.config.ServerConfig;
import dev.postbox.testing.TestDatabase;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.Test;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seed 001 §6.2's tenant isolation through the server: one source with two tenants' table sets, each its own bulkhead
 * (relay, pool). Tenant A starts with a backlog of {@value #BACKLOG} events; tenant B's events, written one at a time
 * meanwhile, are published within the poll interval's reach while A's backlog is still being drained: B never waits
 * behind A. (The bench, {@code scripts/bench tenants}, measures B's p99 with and without A's 500,000.)
 */
class TenantBulkheadTest {

    static final int BACKLOG = 60_000;
    static final int B_EVENTS = 150;
    static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    static final String NATS_URL = System.getProperty("postbox.test.nats.url", "nats://127.0.0.1:4222");
    static final String STREAM = "POSTBOX_SERVER_TENANTS_" + RUN.toUpperCase(Locale.ROOT);
    static final String SUBJECT = "server_tenants_" + RUN;

    @Test
    void aTenantsBacklogNeverDelaysAnotherTenant() throws Exception {
        try (TestDatabase db = TestDatabase.postgres(null); Connection nats = Nats.connect(NATS_URL)) {
            nats.jetStreamManagement().addStream(StreamConfiguration.builder().name(STREAM).subjects(SUBJECT + ".>")
                    .storageType(StorageType.Memory).maxMessages(10_000).discardPolicy(DiscardPolicy.Old).build());
            try {
                Postbox a = Postbox.builder(db.dataSource()).tablePrefix("ta_").source("test").build();
                Postbox b = Postbox.builder(db.dataSource()).tablePrefix("tb_").source("test").build();
                a.schema().install();
                b.schema().install();
                preload(db, a);
                String yaml = """
                        server: {address: 127.0.0.1, port: 0}
                        sources:
                          shop:
                            jdbc-url: '%s'
                            username: %s
                            tenants: {a: ta_, b: tb_}
                            relay: {batch-size: 500, poll-interval-max: 100ms}
                        destinations:
                          nats: {type: nats, url: '%s', max-in-flight: 2000}
                        routes:
                          - {source: shop, channel: NATS, destination: nats}
                        """.formatted(db.jdbcUrl(), db.user(), NATS_URL);
                ServerConfig config = new ConfigLoader(k -> null).parse("tenants.yml", yaml);
                try (RelayServer server = RelayServer.start(config)) {
                    assertThat(server.relays()).containsOnlyKeys("shop[a]", "shop[b]");
                    for (int i = 0; i < B_EVENTS; i++) {
                        try (java.sql.Connection c = db.dataSource().getConnection()) {
                            c.setAutoCommit(false);
                            String no = "B-" + i;
                            b.outbox().write(c, OutboxEvent.builder().eventNo(no).aggregate("ORDER", no)
                                    .eventType("ORDER_CREATED").channel("NATS").topic(SUBJECT + ".b").payload("{}").build());
                            c.commit();
                        }
                        Thread.sleep(10);
                    }
                    long deadline = System.nanoTime() + 60_000_000_000L;
                    while (unpublished(db, "tb_") > 0) {
                        assertThat(System.nanoTime() < deadline).as("tenant B's events PUBLISHED within 60 s").isTrue();
                        Thread.sleep(50);
                    }
                    long[] latencies = latenciesMillis(db, "tb_");
                    long p99 = latencies[(int) Math.ceil(latencies.length * 0.99) - 1];
                    Timestamp lastB = lastPublished(db, "tb_");
                    long aLeft = unpublishedAt(db, "ta_", lastB);
                    assertThat(aLeft).as("tenant A still had a backlog when B's last event was published (else this"
                            + " proves nothing: B p99 " + p99 + " ms)").isGreaterThan(0);
                    assertThat(p99).as("tenant B's p99 create-to-published while tenant A drains " + BACKLOG + " events"
                            + " (A had " + aLeft + " left at B's last)").isLessThan(1_500);
                }
            } finally {
                nats.jetStreamManagement().deleteStream(STREAM);
            }
        }
    }

    private static void preload(TestDatabase db, Postbox a) throws Exception {
        List<OutboxEvent> batch = new ArrayList<>(1_000);
        for (int i = 0; i < BACKLOG; i++) {
            batch.add(OutboxEvent.builder().eventNo("A-" + i).aggregate("ORDER", "a-" + (i % 1_000))
                    .eventType("ORDER_CREATED").channel("NATS").topic(SUBJECT + ".a").payload("{\"i\":" + i + "}").build());
            if (batch.size() == 1_000) {
                try (java.sql.Connection c = db.dataSource().getConnection()) {
                    c.setAutoCommit(false);
                    a.outbox().writeAll(c, batch);
                    c.commit();
                }
                batch.clear();
            }
        }
    }

    private static long unpublished(TestDatabase db, String prefix) throws Exception {
        return count(db, "SELECT COUNT(*) FROM " + prefix + "outbox_event WHERE published_time IS NULL", null);
    }

    private static long unpublishedAt(TestDatabase db, String prefix, Timestamp at) throws Exception {
        return count(db, "SELECT COUNT(*) FROM " + prefix + "outbox_event WHERE published_time IS NULL OR published_time > ?",
                at);
    }

    private static long count(TestDatabase db, String sql, Timestamp at) throws Exception {
        try (java.sql.Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            if (at != null) {
                ps.setTimestamp(1, at);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static Timestamp lastPublished(TestDatabase db, String prefix) throws Exception {
        try (java.sql.Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT MAX(published_time) FROM " + prefix + "outbox_event");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getTimestamp(1);
        }
    }

    private static long[] latenciesMillis(TestDatabase db, String prefix) throws Exception {
        List<Long> out = new ArrayList<>();
        try (java.sql.Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT create_time, published_time FROM " + prefix + "outbox_event");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getTimestamp(2).getTime() - rs.getTimestamp(1).getTime());
            }
        }
        return out.stream().mapToLong(Long::longValue).sorted().toArray();
    }
}
