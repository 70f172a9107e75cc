package dev.postbox.query;

import dev.postbox.Postbox;
import dev.postbox.compensation.CompensationJob;
import dev.postbox.inbox.InboxListener;
import dev.postbox.inbox.InboxResult;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.retention.RetentionTable;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the meters and the Actuator endpoint read besides backlogs ({@link Monitoring}), and the inbox and
 * compensation listeners they count with, on a real database.
 */
public abstract class MonitoringContract extends DatabaseContract {

    @BeforeEach
    final void emptyInstances() throws Exception {
        exec("DELETE FROM " + postbox.tables().relayInstance());
        exec("DELETE FROM " + postbox.tables().compensationLog());
    }

    @Test
    final void tableSizeIsTheCatalogsEstimateOfEveryPostboxTable() throws Exception {
        exec("DELETE FROM " + postbox.tables().outbox()); // the class's tests share one schema
        inTx(c -> {
            for (int i = 0; i < 3; i++) {
                postbox.outbox().write(c, OutboxEvent.builder().eventNo("SIZE-" + i).aggregate("ORDER", "O-" + i)
                        .eventType("ORDER_CREATED").channel("MQ").topic("orders").payload("{}").build());
            }
            return null;
        });
        analyze(postbox.tables().outbox());
        for (RetentionTable t : RetentionTable.values()) {
            Monitoring.TableSize size = postbox.queries().monitoring().tableSize(t);
            assertThat(size.rows()).as(t + " rows: an estimate on every database").isGreaterThanOrEqualTo(0);
            if (postbox.dialect().embedded()) {
                assertThat(size.bytes()).as(t + ": H2 keeps no bytes per table").isEqualTo(-1);
            } else {
                assertThat(size.bytes()).as(t + " heap and indexes").isPositive();
            }
        }
        // PostgreSQL's live-tuple count takes other backends' inserts and deletes as they flush their statistics (up
        // to ~10 s late), also after an ANALYZE has set it, so it can stay off for good: re-analyze until none is late
        dev.postbox.testing.Await.until("three rows written and analyzed", Duration.ofSeconds(60), () -> {
            try {
                analyze(postbox.tables().outbox());
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
            return postbox.queries().monitoring().tableSize(RetentionTable.OUTBOX).rows() == 3;
        }, () -> postbox.queries().monitoring().tableSize(RetentionTable.OUTBOX).rows());
    }

    @Test
    final void instancesAreAliveWhenSeenWithinTheWindowByTheDatabasesClockAndNotStopped() throws Exception {
        Instant now = dbNow();
        instance("relay-live", "relay", now.minusSeconds(5), false);
        instance("relay-stale", "relay", now.minusSeconds(600), false);
        instance("relay-stopped", "relay", now.minusSeconds(5), true);
        instance("worker-live", "worker", now.minusSeconds(5), false);
        instance("relay-last-week", "relay", now.minus(Duration.ofDays(3)), false);
        List<Monitoring.Instance> all = postbox.queries().monitoring().instances(Duration.ofSeconds(60));
        assertThat(all).extracting(Monitoring.Instance::instance).as("seen within a day, by id")
                .containsExactly("relay-live", "relay-stale", "relay-stopped", "worker-live");
        assertThat(all).filteredOn(Monitoring.Instance::alive).extracting(Monitoring.Instance::instance)
                .containsExactly("relay-live", "worker-live");
        assertThat(all.get(0).host()).isEqualTo("host-1");
        assertThat(all.get(0).lastSeen()).isNotNull();
        assertThatThrownBy(() -> postbox.queries().monitoring().instances(Duration.ZERO))
                .hasMessageContaining("aliveWithin");
    }

    @Test
    final void retryableCompensationsAreTheFailedOnesWithAttemptsLeft() throws Exception {
        compensation("K-1", "FAILED", 1);
        compensation("K-2", "FAILED", 2);
        compensation("K-3", "FAILED", 3);
        compensation("K-4", "DONE", 1);
        assertThat(postbox.queries().monitoring().retryableCompensations("ORDER", "TIMEOUT_CANCEL", 3))
                .as("K-3 used its 3 attempts, K-4 is done").isEqualTo(2);
        assertThat(postbox.queries().monitoring().retryableCompensations("ORDER", "OTHER", 3)).isZero();
    }

    @Test
    final void theInboxListenerHearsEveryOutcomeOfEveryInboxUse() throws Exception {
        List<String> heard = new CopyOnWriteArrayList<>();
        Postbox observed = newPostbox(b -> b.inboxListener(new InboxListener() {
            @Override
            public void delivered(String consumer, String eventNo, InboxResult.Outcome outcome) {
                heard.add(consumer + ":" + eventNo + ":" + outcome);
            }

            @Override
            public void failed(String consumer, String eventNo, Throwable failure) {
                heard.add(consumer + ":" + eventNo + ":failed:" + failure.getMessage());
            }
        }));
        inTx(c -> observed.inbox().once(c, "inventory", "E-1", () -> { }));
        inTx(c -> observed.inbox().once(c, "inventory", "E-1", () -> { }));
        assertThatThrownBy(() -> inTx(c -> observed.inbox().once(c, "inventory", "E-2", () -> {
            throw new IllegalStateException("boom");
        }))).hasMessageContaining("boom");
        assertThat(heard).containsExactly("inventory:E-1:RAN", "inventory:E-1:DUPLICATE", "inventory:E-2:failed:boom");
    }

    @Test
    final void aThrowingInboxListenerNeverFailsTheDelivery() throws Exception {
        Postbox observed = newPostbox(b -> b.inboxListener(new InboxListener() {
            @Override
            public void delivered(String consumer, String eventNo, InboxResult.Outcome outcome) {
                throw new IllegalStateException("listener bug");
            }
        }));
        InboxResult<Void> r = inTx(c -> observed.inbox().once(c, "inventory", "E-9", () -> { }));
        assertThat(r.ran()).isTrue();
    }

    @Test
    final void theCompensationListenerHearsEveryRunOfEveryJob() throws Exception {
        List<String> heard = new CopyOnWriteArrayList<>();
        Postbox observed = newPostbox(b -> b.compensationListener((job, run) ->
                heard.add(job.bizType() + ":" + job.actionType() + ":" + job.maxAttempts() + ":" + run)));
        CompensationJob job = observed.compensationJob("ORDER", "TIMEOUT_CANCEL").maxAttempts(2)
                .scan((c, limit) -> List.of("A", "B"))
                .action((c, key) -> {
                    if (key.equals("B")) {
                        throw new IllegalStateException("B fails");
                    }
                })
                .build();
        job.runOnce();
        job.runOnce();
        job.runOnce();
        assertThat(heard).containsExactly(
                "ORDER:TIMEOUT_CANCEL:2:" + new CompensationJob.Run(2, 1, 0, 1, 0, 0),
                "ORDER:TIMEOUT_CANCEL:2:" + new CompensationJob.Run(2, 0, 1, 1, 0, 0),
                "ORDER:TIMEOUT_CANCEL:2:" + new CompensationJob.Run(2, 0, 1, 0, 1, 0));
    }

    private Instant dbNow() throws Exception {
        return inTx(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + postbox.dialect().currentTimeSql() + " AS db_now");
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                return postbox.dialect().readTime(rs, "db_now");
            }
        });
    }

    private void instance(String id, String role, Instant lastSeen, boolean stopped) throws Exception {
        inTx(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + postbox.tables().relayInstance()
                    + " (instance, role, host, detail, started_time, last_seen_time, stopped_time) VALUES (?, ?, 'host-1',"
                    + " 'd', ?, ?, ?)")) {
                ps.setString(1, id);
                ps.setString(2, role);
                postbox.dialect().bindTime(ps, 3, lastSeen);
                postbox.dialect().bindTime(ps, 4, lastSeen);
                if (stopped) {
                    postbox.dialect().bindTime(ps, 5, lastSeen);
                } else {
                    ps.setNull(5, java.sql.Types.TIMESTAMP);
                }
                return ps.executeUpdate();
            }
        });
    }

    private void compensation(String key, String status, int attempts) throws Exception {
        inTx(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + postbox.tables().compensationLog()
                    + " (id, biz_type, biz_key, action_type, compensate_status, attempts, create_time, update_time)"
                    + " VALUES (?, 'ORDER', ?, 'TIMEOUT_CANCEL', ?, ?, ?, ?)")) {
                ps.setLong(1, key.hashCode() & 0xffffL);
                ps.setString(2, key);
                ps.setString(3, status);
                ps.setInt(4, attempts);
                postbox.dialect().bindTime(ps, 5, START);
                postbox.dialect().bindTime(ps, 6, START);
                return ps.executeUpdate();
            }
        });
    }

    /** Makes the catalog's estimate current, as autovacuum or InnoDB would in a while. */
    private void analyze(String table) throws java.sql.SQLException {
        if (postbox.dialect().embedded()) {
            return;
        }
        exec("ANALYZE " + (postbox.dialect().getClass().getSimpleName().startsWith("MySql") || db.kind().equals("mariadb") ? "TABLE " : "") + table);
    }
}
