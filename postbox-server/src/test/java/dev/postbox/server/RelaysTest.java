package dev.postbox.server;

import dev.postbox.Postbox;
import dev.postbox.server.config.ServerConfig;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A source's relay settings reach Postbox's relay builder, and its limits come back named by the file's key. */
class RelaysTest {

    private static ServerConfig.RelaySettings heartbeat(Duration interval) {
        return new ServerConfig.RelaySettings(null, null, null, null, null, null, null, null, List.of(), null, null,
                interval);
    }

    @Test
    void theHeartbeatIntervalIsAppliedAndCheckedAgainstPostboxsLimits() {
        try (TestDatabase db = TestDatabase.h2()) {
            Postbox postbox = Postbox.builder(db.dataSource()).build();
            assertThat(Relays.check(postbox, "sources.orders", heartbeat(Duration.ofSeconds(30)))).isNull();
            assertThat(Relays.check(postbox, "sources.orders", heartbeat(Duration.ofMinutes(2))))
                    .as("the builder got the value: its limit comes back under the file's key")
                    .startsWith("sources.orders.relay.heartbeat-interval: ").contains("PT2M");
            assertThat(Relays.check(postbox, "sources.orders", heartbeat(Duration.ofMillis(10))))
                    .startsWith("sources.orders.relay.heartbeat-interval: ");
        }
    }
}
