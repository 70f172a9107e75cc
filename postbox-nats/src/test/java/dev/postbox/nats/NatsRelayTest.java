package dev.postbox.nats;

import dev.postbox.common.RetryPolicy;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.Relay;
import dev.postbox.testing.TcpProxy;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** A real relay publishing through {@link NatsPublisher}, a {@link NatsSubscriber} consuming into a table via the inbox. */
class NatsRelayTest extends NatsTestBase {

    private void awaitReceived(long n, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        long received = 0;
        while (System.nanoTime() < deadline) {
            received = queryLong("SELECT COUNT(*) FROM app_received");
            if (received >= n) {
                return;
            }
            Thread.sleep(100);
        }
        StringBuilder state = new StringBuilder();
        try (java.sql.Connection c = pool.getConnection(); java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT o.event_no, o.publish_status, o.retry_count, o.fail_reason FROM "
                     + postbox.tables().outbox() + " o WHERE NOT EXISTS (SELECT 1 FROM app_received r WHERE r.event_no = o.event_no)"
                     + " ORDER BY o.id LIMIT 5")) {
            while (rs.next()) {
                state.append("\n  missing ").append(rs.getString(1)).append(" status=").append(rs.getInt(2))
                        .append(" retries=").append(rs.getInt(3)).append(" reason=").append(rs.getString(4));
            }
        }
        io.nats.client.api.ConsumerInfo info = nats.jsm.getConsumerInfo(nats.stream, "orders");
        state.append("\n  stream messages=").append(nats.messages()).append(" consumer ackPending=")
                .append(info.getNumAckPending()).append(" pending=").append(info.getNumPending())
                .append(" redelivered=").append(info.getRedelivered());
        throw new AssertionError("received " + received + " of " + n + " within " + timeout + state);
    }

    private static final Duration OUTAGE = Duration.ofSeconds(20);

    private static void awaitStatusNot(NatsPublisher publisher, io.nats.client.Connection.Status status) throws InterruptedException {
        for (int i = 0; i < 300 && publisher.connection().getStatus() == status; i++) { // up to 15 s on a busy machine
            Thread.sleep(50);
        }
        assertThat(publisher.connection().getStatus()).as("the client saw the outage").isNotEqualTo(status);
    }

    /**
     * Waits until the relay has recorded {@code n} rows as PUBLISHED: the subscriber can see an event before the
     * relay records its ack, and an event stored after one it overtook is sent again after its backoff.
     */
    private void awaitPublished(long n, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (count(OutboxStatus.PUBLISHED) < n && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(count(OutboxStatus.PUBLISHED)).as("recorded as PUBLISHED within " + timeout).isEqualTo(n);
    }

    private long count(OutboxStatus status) throws Exception {
        return queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status = " + status.code());
    }

    @Test
    @SuppressWarnings("try") // the subscriber and the relay work in the background until closed
    void manyEventsOfAHundredAggregatesArriveOnceInAggregateOrder() throws Exception {
        int n = dev.postbox.testing.TestScale.events(10_000);
        writeEvents(n, 100, "order.changed", 5);
        try (NatsPublisher publisher = NatsPublisher.builder().servers(JetStreamFixture.URL).subjectPrefix(nats.prefix).build();
             NatsSubscriber subscriber = NatsSubscriber.builder(nats.connection, recorder("orders")).stream(nats.stream)
                     .batchSize(500).build().start();
             Relay relay = postbox.relay(publisher).instanceId("r1").batchSize(500).start()) {
            awaitReceived(n, Duration.ofSeconds(90));
            awaitPublished(n, Duration.ofSeconds(30));
        }
        assertThat(queryLong("SELECT COUNT(*) FROM app_received")).isEqualTo(n);
        assertThat(queryLong("SELECT COUNT(DISTINCT event_no) FROM app_received")).isEqualTo(n);
        assertThat(orderViolations()).isEmpty();
        assertThat(count(OutboxStatus.PUBLISHED)).isEqualTo(n);
        assertThat(nats.messages()).isEqualTo(n);
    }

    @Test
    @SuppressWarnings("try")
    void aTwentySecondOutageIsRetriedAndEverythingArrivesInOrder() throws Exception {
        writeEvents(1_000, 20, "order.changed", 100);
        try (TcpProxy proxy = new TcpProxy("127.0.0.1", 4222);
             NatsPublisher publisher = NatsPublisher.builder().servers("nats://127.0.0.1:" + proxy.port()).subjectPrefix(nats.prefix)
                     .ackTimeout(Duration.ofSeconds(2)).reconnectWait(Duration.ofMillis(250)).build();
             NatsSubscriber subscriber = NatsSubscriber.builder(nats.connection, recorder("orders")).stream(nats.stream)
                     .batchSize(500).build().start();
             Relay relay = postbox.relay(publisher).instanceId("r1").batchSize(500)
                     .retryPolicy(RetryPolicy.exponential(Duration.ofMillis(200), Duration.ofSeconds(1))).start()) {
            awaitReceived(1_000, Duration.ofSeconds(30));
            proxy.down();
            long down = System.nanoTime();
            awaitStatusNot(publisher, io.nats.client.Connection.Status.CONNECTED);
            // more events (indices 1000..1999 continue every aggregate) while the broker is unreachable
            writeTail(1_000, 2_000, 20);
            Thread.sleep(10_000);
            assertThat(queryLong("SELECT COUNT(*) FROM app_received")).as("nothing got through the outage").isEqualTo(1_000);
            assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE retry_count > 0"))
                    .as("the relay has been retrying").isPositive();
            Thread.sleep(Math.max(0, OUTAGE.toMillis() - (System.nanoTime() - down) / 1_000_000));
            proxy.up();
            long back = System.nanoTime();
            awaitReceived(2_000, Duration.ofSeconds(30));
            System.out.printf("all delivered %d ms after the broker came back%n", (System.nanoTime() - back) / 1_000_000);
            awaitPublished(2_000, Duration.ofSeconds(30));
        }
        assertThat(queryLong("SELECT COUNT(DISTINCT event_no) FROM app_received")).isEqualTo(2_000);
        assertThat(queryLong("SELECT COUNT(*) FROM app_received")).isEqualTo(2_000);
        assertThat(orderViolations()).isEmpty();
        assertThat(count(OutboxStatus.PUBLISHED)).isEqualTo(2_000);
        assertThat(count(OutboxStatus.DEAD)).isZero();
        assertThat(nats.messages()).as("copies buffered during the outage were deduplicated").isEqualTo(2_000);
    }

    private void writeTail(int from, int to, int aggregates) throws Exception {
        java.util.List<dev.postbox.outbox.OutboxEvent> batch = new java.util.ArrayList<>();
        for (int i = from; i < to; i++) {
            batch.add(dev.postbox.outbox.OutboxEvent.builder().eventNo(nats.id + "-" + i).aggregate("ORDER", "A" + (i % aggregates))
                    .eventType("ORDER_CHANGED").channel("NATS").topic("order.changed").payload("{\"seq\":" + i + "}")
                    .maxRetries(100).build());
        }
        try (java.sql.Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().writeAll(c, batch);
            c.commit();
        }
    }
}
