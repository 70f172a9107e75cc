package dev.postbox.test;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The extension with every default: its own in-memory H2 database, everything reset between tests. */
@ExtendWith(PostboxExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class H2PostboxExtensionTest {

    @Test
    @Order(1)
    void givesATestPostboxOnTheTestClockAndADriverThroughTheRecordingPublisher(Postbox postbox, DataSource db,
            TestClock clock, RecordingPublisher publisher, RelayDriver relay, InvariantChecker checker) throws Exception {
        assertThat(postbox.dialect().name()).isEqualTo("h2");
        assertThat(clock.instant()).isEqualTo(PostboxExtension.DEFAULT_START);
        publisher.failNext(1);
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().write(c, OutboxEvent.builder().eventNo("E-1").aggregate("ORDER", "1").eventType("CREATED")
                    .source("shop").channel("MQ").topic("order.event").payload("{}").build());
            c.commit();
        }

        RelayDriver.Report r = relay.drainAdvancingClock();

        assertThat(r.failed()).containsExactly("E-1");
        assertThat(r.published()).containsExactly("E-1");
        assertThat(clock.instant()).isAfter(PostboxExtension.DEFAULT_START);
        publisher.assertPublishedTimes("E-1", 1);
        checker.assertAll();
    }

    @Test
    @Order(2)
    void resetsTheClockThePublisherAndTheTablesBeforeEachTest(Postbox postbox, DataSource db, TestClock clock,
                                                             RecordingPublisher publisher) throws Exception {
        assertThat(clock.instant()).isEqualTo(PostboxExtension.DEFAULT_START);
        assertThat(publisher.deliveries()).isEmpty();
        try (Connection c = db.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + postbox.tables().outbox())) {
            rs.next();
            assertThat(rs.getLong(1)).isZero();
        }
        clock.advance(Duration.ofDays(1));
    }
}
