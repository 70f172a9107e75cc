package dev.postbox.test;

import dev.postbox.outbox.OutboxEvent;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The extension on a database the test names, with the relay's and Postbox's settings, as a static field. */
class PostgresPostboxExtensionTest {

    private static final Instant START = Instant.parse("2031-06-01T12:00:00Z");
    private static final TestDatabase DB = TestDatabase.postgres(null);

    @RegisterExtension
    static final PostboxExtension POSTBOX = PostboxExtension.builder()
            .dataSource(DB::dataSource)
            .postbox(b -> b.tablePrefix("kit_").source("shop"))
            .relay(r -> r.leaseDuration(Duration.ofSeconds(20)))
            .start(START)
            .build();

    @AfterAll
    static void dropDatabase() {
        DB.close();
    }

    @Test
    void aCrashedRelaysEventIsPublishedAgainOnceItsLeaseExpiresByTheTestClock() throws Exception {
        POSTBOX.publisher().crashAfterPublishNext(1);
        try (Connection c = POSTBOX.dataSource().getConnection()) {
            c.setAutoCommit(false);
            POSTBOX.postbox().outbox().write(c, OutboxEvent.builder().eventNo("E-1").aggregate("ORDER", "1")
                    .eventType("CREATED").channel("MQ").topic("order.event").payload("{}").build());
            c.commit();
        }
        assertThat(POSTBOX.postbox().tables().outbox()).isEqualTo("kit_outbox_event");

        assertThat(POSTBOX.driver().runOnce().crashed()).containsExactly("E-1");
        RelayDriver.Report r = POSTBOX.driver().drainAdvancingClock();

        assertThat(r.takenOver()).containsExactly("E-1");
        assertThat(r.clockAdvanced()).isEqualTo(Duration.ofSeconds(20));
        assertThat(POSTBOX.clock().instant()).isEqualTo(START.plusSeconds(20));
        POSTBOX.publisher().assertPublishedTimes("E-1", 2);
        POSTBOX.checker().assertAll();
    }
}
