package dev.postbox.relay;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Postbox;
import dev.postbox.spi.PublishResult;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A relay in its own JVM for {@link RelayKillContract}: claims a batch, says {@code SENDING <n>} on
 * stdout, and waits for sends that never answer, until it is killed with kill -9.
 * Arguments: JDBC URL, user.
 */
public final class RelayChild {

    private RelayChild() {
    }

    public static void main(String[] args) throws Exception {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(args[0]);
        cfg.setUsername(args[1]);
        cfg.setMaximumPoolSize(3);
        try (HikariDataSource ds = new HikariDataSource(cfg)) {
            Postbox postbox = Postbox.builder(ds).clock(Clock.systemUTC()).source("child").build();
            Relay relay = postbox.relay(records -> {
                System.out.println("SENDING " + records.size());
                System.out.flush();
                return records.stream().<CompletionStage<PublishResult>>map(r -> new CompletableFuture<>()).toList();
            }).instanceId("child-relay").sendTimeout(java.time.Duration.ofMinutes(5)).listenForNotifications(false).build();
            relay.runOnce(); // never returns: the sends never answer, the lease is renewed until kill -9
            System.out.println("UNEXPECTED " + List.of());
        }
    }
}
