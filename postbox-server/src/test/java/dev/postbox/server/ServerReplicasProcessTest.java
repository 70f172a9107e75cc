package dev.postbox.server;

import dev.postbox.testing.Await;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three {@code postbox-server run} processes on one file (no instance-id: each is named by its process id, health on a
 * port of its own through {@code port: 0}) share two sources while writers write: the databases show leases of more
 * than one replica; then one replica is killed with kill -9 and another stopped with SIGTERM at once, and the third
 * finishes everything: nothing lost, each aggregate's events in order. The stopped one exits 0 in time, its log and the
 * instance table saying it stopped; the killed one's instance row never says so. Logs: target/server-process/.
 */
class ServerReplicasProcessTest {

    private static final String PREFIX_INSTANCE = TwoSourceFlow.PREFIX + "relay_instance";

    private TwoSourceFlow flow;
    private final List<ServerProcess> replicas = new ArrayList<>();
    private final AtomicBoolean sampling = new AtomicBoolean();

    @AfterEach
    void cleanUp() throws Exception {
        sampling.set(false);
        try {
            replicas.forEach(ServerProcess::close);
        } finally {
            if (flow != null) {
                flow.close();
            }
        }
    }

    @Test
    void threeReplicasShareTheWorkAndOneSurvivorFinishesAfterAKill9AndASigterm() throws Exception {
        flow = new TwoSourceFlow("replicas");
        Path config = flow.config("server.yml", null);
        for (String name : List.of("a", "b", "c")) {
            replicas.add(ServerProcess.start("replica " + name, flow.log("replica-" + name), "run", config.toString()));
        }
        for (ServerProcess r : replicas) {
            r.awaitReady(Duration.ofSeconds(40));
        }
        ServerProcess killed = replicas.get(0);
        ServerProcess stopped = replicas.get(1);
        ServerProcess survivor = replicas.get(2);

        // which replica holds leases, sampled from both databases' locked_by (the process id leads the instance id)
        Map<Long, Set<String>> leasesSeen = new ConcurrentHashMap<>();
        sampling.set(true);
        Thread sampler = new Thread(() -> {
            while (sampling.get()) {
                for (String holder : flow.leaseHolders()) {
                    if (holder == null || !holder.contains("@")) {
                        continue;
                    }
                    long pid = Long.parseLong(holder.substring(0, holder.indexOf('@')));
                    leasesSeen.computeIfAbsent(pid, p -> ConcurrentHashMap.newKeySet()).add(holder.substring(
                            holder.indexOf('/') + 1));
                }
                pause(10);
            }
        }, "lease-sampler");
        sampler.setDaemon(true);
        flow.startWriting();
        sampler.start();
        Await.until("leases of replica b and another replica seen while the events flow", Duration.ofSeconds(20),
                () -> leasesSeen.containsKey(stopped.pid())
                        && replicas.stream().filter(r -> leasesSeen.containsKey(r.pid())).count() >= 2, () -> leasesSeen);
        flow.awaitPublished("events flowing through the replicas", Duration.ofSeconds(20), n -> n >= 500);
        sampling.set(false);
        sampler.join(5_000);
        String sharing = "leases by process id: " + leasesSeen + " (a " + killed.pid() + ", b " + stopped.pid() + ", c "
                + survivor.pid() + ")";
        System.out.println("before the kills, " + sharing);

        // replica a dies holding leases (frozen at a moment the databases show some), replica b is stopped at once
        long[] held = flow.freezeHoldingLeases(killed, killed.pid() + "@%");
        killed.kill9();
        stopped.terminate();
        long stopping = System.nanoTime();
        int stoppedExit = stopped.awaitExit(Duration.ofSeconds(30));
        long stopMs = (System.nanoTime() - stopping) / 1_000_000;
        flow.awaitPublished("the survivor publishing after the kills", Duration.ofSeconds(20), n -> n >= 1000);
        flow.stopWriting();
        flow.awaitAllDelivered(Duration.ofSeconds(30));
        assertThat(survivor.alive()).as("the survivor still runs").isTrue();
        String killedWith = "replica a killed holding " + held[0] + " PostgreSQL and " + held[1] + " MariaDB leases";
        System.out.println(killedWith + " (frozen " + held[2] + " times to find leases)");
        if (held[0] > 0) {
            assertThat(flow.count(flow.pg, "lease_expiries > 0")).as("the survivor took over the PostgreSQL leases of the"
                    + " killed replica (" + killedWith + ")").isPositive();
        }
        if (held[1] > 0) {
            assertThat(flow.count(flow.maria, "lease_expiries > 0")).as("the survivor took over the MariaDB leases of the"
                    + " killed replica (" + killedWith + ")").isPositive();
        }

        DeliveryHistory.assertAtLeastOnceInOrder("PostgreSQL -> RabbitMQ, 3 replicas, kill -9 + SIGTERM (" + sharing + ")",
                flow.pgWriter.written(), flow.fromRabbit());
        DeliveryHistory.assertAtLeastOnceInOrder("MariaDB -> NATS, 3 replicas, kill -9 + SIGTERM (" + sharing + ")",
                flow.mariaWriter.written(), flow.fromNats());

        survivor.terminate();
        survivor.awaitExit(Duration.ofSeconds(30));
        Map<Long, Long> published = new TreeMap<>();
        for (TestDatabase db : List.of(flow.pg, flow.maria)) {
            Map<Long, String> instances = instances(db);
            String what = db.kind() + " " + PREFIX_INSTANCE + ": " + instances + "; " + relayStats(db);
            assertThat(instances.get(stopped.pid())).as(what + ": the SIGTERM'd replica's row").isEqualTo("stopped");
            assertThat(instances.get(survivor.pid())).as(what + ": the survivor's row").isEqualTo("stopped");
            assertThat(instances.get(killed.pid())).as(what + ": the killed replica's row").isEqualTo("running");
            System.out.println(what);
            published.merge(stopped.pid(), published(db, stopped.pid()), Long::sum);
        }
        assertThat(published.get(stopped.pid())).as("events replica b recorded as published by it (its stats, written"
                + " at its clean close) besides those of the survivor: the work was shared").isPositive();
        String log = stopped.log();
        // by the shutdown hook (its thread's name), each relay, then the server
        for (String source : List.of("orders-pg", "billing-mariadb")) {
            assertThat(log).as("replica b's log").containsPattern("\\[postbox-server-shutdown\\] .*Relay "
                    + stopped.pid() + "@\\S+/" + source + " stopped");
        }
        assertThat(log).as("replica b's log").containsPattern("\\[postbox-server-shutdown\\] .*postbox-server "
                + stopped.pid() + "@\\S+ stopped");
        System.out.println("replica b stopped by SIGTERM in " + stopMs + " ms, exit code " + stoppedExit);
        assertThat(stoppedExit).as("replica b's exit code after SIGTERM (stopped in %d ms); its log:%n%s", stopMs, log)
                .isZero();
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The relay instance rows by process id: {@code stopped} when a clean close recorded it, else {@code running}. */
    private static Map<Long, String> instances(TestDatabase db) throws SQLException {
        Map<Long, String> out = new TreeMap<>();
        try (java.sql.Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT instance, stopped_time FROM " + PREFIX_INSTANCE
                     + " WHERE role = 'relay' AND instance LIKE '%@%'");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String instance = rs.getString(1);
                out.put(Long.parseLong(instance.substring(0, instance.indexOf('@'))),
                        rs.getObject(2) == null ? "running" : "stopped");
            }
        }
        return out;
    }

    /** Events the relays of process {@code pid} recorded as published in {@code db} (heartbeats and clean close). */
    private static long published(TestDatabase db, long pid) throws SQLException {
        try (java.sql.Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT COALESCE(SUM(succeeded), 0) FROM " + TwoSourceFlow.PREFIX
                     + "relay_stats WHERE instance LIKE ?")) {
            ps.setString(1, pid + "@%");
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Events published per relay instance as its heartbeats and its close recorded them, for messages. */
    private static String relayStats(TestDatabase db) throws SQLException {
        Map<String, Long> out = new TreeMap<>();
        try (java.sql.Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT instance, SUM(succeeded) FROM " + TwoSourceFlow.PREFIX
                     + "relay_stats GROUP BY instance");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.put(rs.getString(1), rs.getLong(2));
            }
        }
        return "published per instance " + out;
    }
}
