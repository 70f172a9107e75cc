package dev.postbox.server;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code postbox-server run} as a real process, killed with kill -9 in the middle of the flow and started again on the
 * same file (the same {@code instance-id}, as a restarted pod keeps its name): PostgreSQL relayed to RabbitMQ and
 * MariaDB to NATS JetStream while writers keep writing. The kill falls while the server holds leases (it is frozen with
 * SIGSTOP until the databases show some, then killed), so the second server must take them over after the 2 s lease;
 * then every event is PUBLISHED and received, none lost, each aggregate's in order. Logs: target/server-process/.
 */
class ServerProcessTest {

    private TwoSourceFlow flow;
    private ServerProcess first;
    private ServerProcess second;

    @AfterEach
    void cleanUp() throws Exception {
        try {
            for (ServerProcess p : new ServerProcess[] {first, second}) {
                if (p != null) {
                    p.close();
                }
            }
        } finally {
            if (flow != null) {
                flow.close();
            }
        }
    }

    @Test
    void aServerKilledWithKill9MidFlowLosesNothingAndBreaksNoOrderOnceStartedAgain() throws Exception {
        flow = new TwoSourceFlow("kill9-restart");
        Path config = flow.config("server.yml", "relay-1");
        first = ServerProcess.start("server 1", flow.log("server-1"), "run", config.toString());
        first.awaitReady(Duration.ofSeconds(30));

        flow.startWriting();
        flow.awaitPublished("events flowing through server 1", Duration.ofSeconds(20), n -> n >= 400);
        // kill -9 while it holds leases: frozen (SIGSTOP) at a moment the databases show some, then killed
        long[] held = flow.freezeHoldingLeases(first, "relay-1/%");
        first.kill9();
        long publishedAtKill = flow.published(flow.pg) + flow.published(flow.maria);
        String killedWith = "killed holding " + held[0] + " PostgreSQL and " + held[1] + " MariaDB leases, "
                + publishedAtKill + " events PUBLISHED by then (frozen " + held[2] + " times to find leases)";
        System.out.println("server 1 " + killedWith);

        second = ServerProcess.start("server 2", flow.log("server-2"), "run", config.toString());
        second.awaitReady(Duration.ofSeconds(30));
        flow.awaitPublished("server 2 publishing", Duration.ofSeconds(20),
                n -> flow.published(flow.pg) + flow.published(flow.maria) > publishedAtKill + 200);
        flow.stopWriting();
        flow.awaitAllDelivered(Duration.ofSeconds(30));

        long expiries = flow.count(flow.pg, "lease_expiries > 0") + flow.count(flow.maria, "lease_expiries > 0");
        if (held[0] > 0) {
            assertThat(flow.count(flow.pg, "lease_expiries > 0")).as("server 2 took over the PostgreSQL leases server 1"
                    + " died with (" + killedWith + ")").isPositive();
        }
        if (held[1] > 0) {
            assertThat(flow.count(flow.maria, "lease_expiries > 0")).as("server 2 took over the MariaDB leases server 1"
                    + " died with (" + killedWith + ")").isPositive();
        }
        int duplicates = DeliveryHistory.assertAtLeastOnceInOrder("PostgreSQL -> RabbitMQ across kill -9 (" + killedWith + ")",
                flow.pgWriter.written(), flow.fromRabbit());
        duplicates += DeliveryHistory.assertAtLeastOnceInOrder("MariaDB -> NATS across kill -9 (" + killedWith + ")",
                flow.mariaWriter.written(), flow.fromNats());
        System.out.println("duplicates after kill -9: " + duplicates + "; events taken over: " + expiries);
        assertThat(flow.count(flow.pg, "retry_count > 0") + flow.count(flow.maria, "retry_count > 0"))
                .as("a crash is no failed publish attempt").isZero();
    }
}
