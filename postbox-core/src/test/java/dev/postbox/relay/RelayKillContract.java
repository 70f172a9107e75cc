package dev.postbox.relay;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.testing.Await;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A relay in a separate JVM is killed with kill -9 while its batch is in flight: a live relay takes the
 * batch over one lease later (the dead relay renewed it until it died), without counting an attempt.
 * Prints the measured kill-to-flowing time. Not bound for H2: an in-memory database cannot be shared
 * with another process.
 */
public abstract class RelayKillContract extends DatabaseContract {

    @Test
    final void aRelayKilledWithKill9HoldsItsEventsForOneLeaseOnly() throws Exception {
        int n = 100;
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            events.add(OutboxEvent.builder().eventNo("K-" + i).aggregate("ORDER", "A" + (i % 10))
                    .eventType("ORDER_CHANGED").channel("MQ").topic("t").payload("{}").build());
        }
        inTx(c -> postbox.outbox().writeAll(c, events));
        String java = ProcessHandle.current().info().command().orElse("java");
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                RelayChild.class.getName(), db.jdbcUrl(), db.user()).redirectErrorStream(true).start();
        long killed;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = out.readLine()) != null && !line.startsWith("SENDING")) {
                // the child's log lines
            }
            assertThat(line).as("the child relay claimed and is sending").isNotNull();
            // let the child renew its leases once, so that what is measured is a renewed lease running out
            java.time.Instant claimedUntil = lockUntil("K-0");
            Await.until("the child renewed its leases", Duration.ofSeconds(30),
                    () -> lockUntil("K-0") != null && lockUntil("K-0").isAfter(claimedUntil));
        } finally {
            child.destroyForcibly(); // SIGKILL on Unix: no shutdown hook, no close(), leases left as they are
            killed = System.nanoTime();
            child.waitFor(30, TimeUnit.SECONDS);
        }
        long claimedByChild = queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE locked_by = 'child-relay'");
        assertThat(claimedByChild).isPositive();
        Postbox live = newPostbox(b -> b.clock(Clock.systemUTC()));
        Receiver receiver = new Receiver();
        long firstAgain;
        try (Relay relay = live.relay(RelayContract.to(receiver)).instanceId("survivor").start()) {
            Await.until("the first abandoned event published", Duration.ofSeconds(60), () -> receiver.distinct() > n - claimedByChild);
            firstAgain = System.nanoTime();
            Await.until("every event published", Duration.ofSeconds(60), () -> receiver.distinct() == n);
        }
        long allAgain = System.nanoTime();
        System.out.printf("[%s] kill -9 of a relay holding %d events (lease %s): flowing again after %d ms, all %d"
                        + " published after %d ms%n", db.kind(), claimedByChild, RelayDefaults.LEASE,
                TimeUnit.NANOSECONDS.toMillis(firstAgain - killed), n, TimeUnit.NANOSECONDS.toMillis(allAgain - killed));
        assertThat(receiver.duplicates()).isZero();
        assertThat(receiver.orderViolations()).isEmpty();
        for (int i = 0; i < n; i++) {
            OutboxRecord r = postbox.queries().outbox().byEventNo("K-" + i).orElseThrow();
            assertThat(r.status()).isEqualTo(OutboxStatus.PUBLISHED);
            assertThat(r.retryCount()).as("a crash is no failed attempt").isZero();
        }
        assertThat(queryLong("SELECT SUM(lease_expiries) FROM " + postbox.tables().outbox())).isEqualTo(claimedByChild);
    }

    private java.time.Instant lockUntil(String eventNo) {
        return postbox.queries().outbox().byEventNo(eventNo).orElseThrow().lockUntil();
    }
}
