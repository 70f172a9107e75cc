package dev.postbox.retention;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.testing.Await;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An archiver in a separate JVM is killed with kill -9 while it moves rows batch after batch (each batch
 * a transaction of a few milliseconds, so the kill lands inside one most times): every row is afterwards
 * in exactly one of the online and the archive table; another instance takes over once the dead one's
 * retention lease expired and moves the rest without a conflict.
 * Not bound for H2: an in-memory database cannot be shared with another process.
 */
public abstract class RetentionKillContract extends DatabaseContract {

    private static final int ROWS = 6_000;

    @Test
    final void anArchiverKilledMidBatchLeavesEveryRowInExactlyOneTable() throws Exception {
        String online = postbox.tables().outbox();
        String archive = postbox.tables().outboxArchive();
        List<OutboxEvent> chunk = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            chunk.add(OutboxEvent.builder().eventNo("K-" + i).aggregate("ORDER", "A" + (i % 50))
                    .eventType("ORDER_CHANGED").channel("MQ").topic("t").payload("{\"i\":" + i + "}").build());
            if (chunk.size() == 1_000) {
                List<OutboxEvent> batch = List.copyOf(chunk);
                inTx(c -> postbox.outbox().writeAll(c, batch));
                chunk.clear();
            }
        }
        inTx(c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + online + " SET publish_status = ?, create_time = ?, update_time = ?")) {
                ps.setInt(1, OutboxStatus.PUBLISHED.code());
                postbox.dialect().bindTime(ps, 2, START.minus(Duration.ofDays(31)));
                postbox.dialect().bindTime(ps, 3, START.minus(Duration.ofDays(30)));
                return ps.executeUpdate();
            }
        });

        String java = ProcessHandle.current().info().command().orElse("java");
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                ArchiverChild.class.getName(), db.jdbcUrl(), db.user()).redirectErrorStream(true).start();
        long archivedBeforeKill = 0;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("ARCHIVED ")) {
                    archivedBeforeKill = Long.parseLong(line.substring(9).trim());
                    if (archivedBeforeKill >= ROWS / 3) {
                        break;
                    }
                }
            }
            assertThat(line).as("the child archived a third of the rows and goes on").isNotNull();
        } finally {
            child.destroyForcibly(); // SIGKILL: no close(), whatever transaction was open is cut off
            child.waitFor(30, TimeUnit.SECONDS);
        }
        assertThat(archivedBeforeKill).isLessThan(ROWS);
        assertEveryRowInExactlyOneTable(online, archive);
        long archivedAfterKill = count(archive);
        assertThat(archivedAfterKill).as("what the child committed stayed").isGreaterThanOrEqualTo(archivedBeforeKill);
        System.out.printf("[%s] archiver killed with %d of %d rows archived (%d reported)%n", db.kind(),
                archivedAfterKill, ROWS, archivedBeforeKill);

        RetentionPolicy policy = RetentionPolicy.builder().outbox(OutboxStatus.PUBLISHED, Duration.ofDays(7))
                .archive(RetentionTable.OUTBOX).build();
        Postbox live = newPostbox(b -> b.clock(Clock.systemUTC()));
        try (Retention retention = live.retention(policy).instanceId("survivor").build()) {
            assertThat(retention.leaseHolder()).as("the dead archiver's lease outlives it")
                    .hasValueSatisfying(h -> assertThat(h.instanceId()).isEqualTo("child"));
            long[] removed = {0};
            Await.until("the survivor takes over once the dead archiver's lease expired", Duration.ofSeconds(30), () -> {
                RetentionReport report = retention.runOnce();
                removed[0] += report.removed();
                return report.ran();
            });
            assertThat(removed[0]).isEqualTo(ROWS - archivedAfterKill);
        }
        assertEveryRowInExactlyOneTable(online, archive);
        assertThat(count(online)).isZero();
        assertThat(count(archive)).isEqualTo(ROWS);
    }

    private void assertEveryRowInExactlyOneTable(String online, String archive) throws Exception {
        assertThat(count(online) + count(archive)).as("rows in the two tables together").isEqualTo(ROWS);
        assertThat(queryLong("SELECT COUNT(*) FROM " + online + " o JOIN " + archive + " a ON a.id = o.id"))
                .as("rows in both tables").isZero();
        assertThat(queryLong("SELECT COUNT(DISTINCT event_no) FROM " + archive)).isEqualTo(count(archive));
    }
}
