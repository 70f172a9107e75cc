package dev.postbox.internal.poll;

import dev.postbox.jdbc.Dialect;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's claim and fence on a table of their own ({@code job_item}, with its own status enum and
 * codes that are not ordinals), as a job to come would use them: only ready rows and due rows of the
 * claimer's queue are claimed, they move to the claimed status with the next version, concurrent
 * claimers never get the same row, and a write on a version that is no longer the row's is fenced out.
 */
public abstract class VersionedClaimContract extends DatabaseContract {

    /** The job's status; codes deliberately not the ordinals. */
    enum JobStatus {
        WAITING(10), RETRYING(20), RUNNING(30), DONE(40);

        final int code;

        JobStatus(int code) {
            this.code = code;
        }

        static JobStatus of(int code) {
            for (JobStatus s : values()) {
                if (s.code == code) {
                    return s;
                }
            }
            throw new IllegalArgumentException("unknown status " + code);
        }
    }

    /** One row of {@code job_item}. */
    record JobItem(long id, JobStatus status, Instant dueTime, int version, Instant claimedAt, String queue) {
    }

    private static final String COLUMNS = "id, status, due_time, version, claimed_at, queue";
    private static final String INSERT = "INSERT INTO job_item (" + COLUMNS + ") VALUES (?, ?, ?, 0, NULL, ?)";

    private Dialect dialect;
    private ClaimSpec<JobItem, JobStatus> spec;
    private VersionedClaim<JobItem> claim;

    @BeforeAll
    final void createJobTable() throws SQLException {
        dialect = postbox.dialect();
        String time = switch (db.kind()) {
            case "postgresql" -> "TIMESTAMPTZ(3)";
            case "mariadb" -> "DATETIME(3)";
            default -> "TIMESTAMP(3) WITH TIME ZONE";
        };
        exec("""
                CREATE TABLE job_item (id BIGINT NOT NULL PRIMARY KEY, status INT NOT NULL, due_time %1$s,
                  version INT NOT NULL, claimed_at %1$s, queue VARCHAR(16) NOT NULL)""".formatted(time));
        exec("CREATE INDEX job_item_idx_due ON job_item (status, due_time, id)");
        spec = new ClaimSpec<>("job_item",
                new ClaimSpec.Rows<JobItem>(COLUMNS, VersionedClaimContract::read, JobItem::id, JobItem::version,
                        (r, now) -> new JobItem(r.id(), JobStatus.RUNNING, r.dueTime(), r.version() + 1, now,
                                r.queue())),
                new ClaimSpec.Statuses<JobStatus>("status", s -> s.code, JobStatus.WAITING, JobStatus.RETRYING,
                        JobStatus.RUNNING),
                new ClaimSpec.Columns("due_time", "version", "claimed_at", null),
                ClaimSpec.Filter.in(null, "e.queue", List.of("main")),
                new ClaimSpec.Index("job_item_idx_due", "e.due_time, e.id"));
        claim = VersionedClaim.of(dialect, spec);
    }

    @BeforeEach
    final void emptyJobTable() throws SQLException {
        exec("DELETE FROM job_item");
    }

    private static JobItem read(ResultSet rs, Dialect d) throws SQLException {
        return new JobItem(rs.getLong("id"), JobStatus.of(rs.getInt("status")), d.readTime(rs, "due_time"),
                rs.getInt("version"), d.readTime(rs, "claimed_at"), rs.getString("queue"));
    }

    private void insert(long id, JobStatus status, Instant due, String queue) throws Exception {
        inTx(c -> {
            try (PreparedStatement ps = c.prepareStatement(INSERT)) {
                ps.setLong(1, id);
                ps.setInt(2, status.code);
                dialect.bindTime(ps, 3, due);
                ps.setString(4, queue);
                return ps.executeUpdate();
            }
        });
    }

    private JobItem row(long id) throws Exception {
        return inTx(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM job_item WHERE id = ?")) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).as("job_item " + id).isTrue();
                    return read(rs, dialect);
                }
            }
        });
    }

    private List<JobItem> claimNow(int limit, Instant now) throws Exception {
        return inTx(c -> claim.claim(c, limit, now));
    }

    private static List<Long> ids(List<JobItem> items) {
        return items.stream().map(JobItem::id).toList();
    }

    @Test
    final void claimsReadyRowsAndDueRowsOfItsQueueOnly() throws Exception {
        Instant now = clock.instant();
        insert(1, JobStatus.WAITING, null, "main");
        insert(2, JobStatus.RETRYING, now.minusSeconds(1), "main");
        insert(3, JobStatus.RETRYING, now.plusSeconds(60), "main");
        insert(4, JobStatus.RUNNING, null, "main");
        insert(5, JobStatus.DONE, null, "main");
        insert(6, JobStatus.WAITING, null, "other");
        insert(7, JobStatus.RETRYING, now, "main"); // due exactly now: claimable

        List<JobItem> claimed = claimNow(10, now);

        assertThat(ids(claimed)).containsExactly(1L, 2L, 7L);
        assertThat(claimed).allSatisfy(r -> {
            assertThat(r.status()).isEqualTo(JobStatus.RUNNING);
            assertThat(r.version()).isEqualTo(1);
            assertThat(r.claimedAt()).isEqualTo(now);
        });
        for (long id : List.of(1L, 2L, 7L)) {
            JobItem returned = claimed.stream().filter(r -> r.id() == id).findFirst().orElseThrow();
            assertThat(row(id)).as("stored " + id).isEqualTo(returned);
        }
        assertThat(row(3)).extracting(JobItem::status, JobItem::version).containsExactly(JobStatus.RETRYING, 0);
        assertThat(row(4).version()).isZero();
        assertThat(row(5).version()).isZero();
        assertThat(row(6)).extracting(JobItem::status, JobItem::version).containsExactly(JobStatus.WAITING, 0);

        assertThat(claimNow(10, now)).as("nothing more is due now").isEmpty();
        assertThat(ids(claimNow(10, now.plusSeconds(60)))).as("row 3 once its due time has come").containsExactly(3L);
    }

    @Test
    final void claimsUpToTheLimitInIdOrder() throws Exception {
        Instant now = clock.instant();
        for (long id = 1; id <= 5; id++) {
            insert(id, id % 2 == 0 ? JobStatus.RETRYING : JobStatus.WAITING, now.minusSeconds(id), "main");
        }
        assertThat(ids(claimNow(3, now))).containsExactly(1L, 2L, 3L);
        assertThat(ids(claimNow(3, now))).containsExactly(4L, 5L);
        assertThat(claimNow(3, now)).isEmpty();
    }

    @Test
    final void aClaimInAnOpenTransactionDoesNotHandItsRowsToAnother() throws Exception {
        Instant now = clock.instant();
        for (long id = 1; id <= 10; id++) {
            insert(id, JobStatus.WAITING, null, "main");
        }
        if (claim.serialized()) {
            // no SKIP LOCKED: claims take turns within the JVM (Transactions.claim), each sees the other's commit
            assertThat(ids(claimNow(5, now))).containsExactly(1L, 2L, 3L, 4L, 5L);
            assertThat(ids(claimNow(5, now))).containsExactly(6L, 7L, 8L, 9L, 10L);
            return;
        }
        List<JobItem> b;
        try (Connection first = ds.getConnection(); Connection second = ds.getConnection()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            try {
                List<JobItem> a = claim.claim(first, 5, now);
                assertThat(ids(a)).containsExactly(1L, 2L, 3L, 4L, 5L);
                // the other claim neither waits for the open one nor gets its rows (it may skip more than
                // those: how many rows a locking read holds on a ten-row table is the planner's choice)
                b = claim.claim(second, 5, now);
                assertThat(ids(b)).as("the rows the open claim does not hold").doesNotContainAnyElementsOf(ids(a))
                        .isSubsetOf(6L, 7L, 8L, 9L, 10L);
                first.commit();
                second.commit();
            } finally {
                first.rollback();
                second.rollback();
            }
        }
        List<JobItem> rest = claimNow(10, now);
        assertThat(ids(rest)).as("what neither claimed").noneMatch(ids(b)::contains).hasSize(5 - b.size());
        assertThat(queryLong("SELECT COUNT(*) FROM job_item WHERE status = ? AND version = 1", JobStatus.RUNNING.code))
                .isEqualTo(10);
    }

    @Test
    final void concurrentClaimersNeverGetTheSameRow() throws Exception {
        Instant now = clock.instant();
        int n = 400;
        inTx(c -> {
            try (PreparedStatement ps = c.prepareStatement(INSERT)) {
                for (int id = 1; id <= n; id++) {
                    ps.setLong(1, id);
                    ps.setInt(2, id % 3 == 0 ? JobStatus.RETRYING.code : JobStatus.WAITING.code);
                    dialect.bindTime(ps, 3, now.minusSeconds(id));
                    ps.setString(4, "main");
                    ps.addBatch();
                }
                return ps.executeBatch();
            }
        });
        ConcurrentLinkedQueue<Long> claimed = new ConcurrentLinkedQueue<>();
        ExecutorService claimers = Executors.newFixedThreadPool(4);
        try (var pool = Pools.own(ds, "job-claim-test", 4)) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                done.add(claimers.submit(() -> claimUntilEmpty(pool, now, claimed)));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            claimers.shutdownNow();
        }
        Set<Long> distinct = new HashSet<>(claimed);
        assertThat(claimed).as("claims of the four claimers").hasSize(n);
        assertThat(distinct).as("rows claimed, each once").hasSize(n);
        assertThat(queryLong("SELECT COUNT(*) FROM job_item WHERE status = ? AND version = 1", JobStatus.RUNNING.code))
                .isEqualTo(n);
    }

    private Void claimUntilEmpty(DataSource pool, Instant now, ConcurrentLinkedQueue<Long> into) {
        while (true) {
            List<JobItem> got = Transactions.claim("job_item-test", claim.serialized(), dialect, pool, "claiming job items",
                    c -> claim.claim(c, 7, now));
            if (got.isEmpty()) {
                return null;
            }
            got.forEach(r -> into.add(r.id()));
        }
    }

    @Test
    final void aWriteOnAStaleVersionIsFencedOut() throws Exception {
        Instant now = clock.instant();
        for (long id = 1; id <= 3; id++) {
            insert(id, JobStatus.WAITING, null, "main");
        }
        List<JobItem> mine = claimNow(3, now);
        assertThat(ids(mine)).containsExactly(1L, 2L, 3L);
        Fence<JobItem> requeue = new Fence<>("job_item", "status = %d, due_time = ?, version = version + 1"
                .formatted(JobStatus.RETRYING.code), "version", null, JobItem::id, JobItem::version);
        Fence<JobItem> finish = new Fence<>("job_item", "status = %d, version = version + 1"
                .formatted(JobStatus.DONE.code), "version", "status = %d".formatted(JobStatus.RUNNING.code),
                JobItem::id, JobItem::version);
        // another claimer recovers row 2 (as if this one had been stuck): the row moves on to version 2
        int[] recovered = inTx(c -> requeue.run(c, List.of(mine.get(1)), (ps, r) -> {
            dialect.bindTime(ps, 1, now.plus(Duration.ofMinutes(5)));
            return 2;
        }));
        assertThat(recovered).containsExactly(1);

        int[] counts = inTx(c -> finish.run(c, mine, (ps, r) -> 1));

        assertThat(counts).hasSize(3);
        assertThat(Fence.held(counts[0])).as("row 1 still as claimed").isTrue();
        assertThat(Fence.held(counts[1])).as("row 2, recovered by another").isFalse();
        assertThat(Fence.held(counts[2])).as("row 3 still as claimed").isTrue();
        assertThat(row(1)).extracting(JobItem::status, JobItem::version).containsExactly(JobStatus.DONE, 2);
        assertThat(row(2)).extracting(JobItem::status, JobItem::version).containsExactly(JobStatus.RETRYING, 2);
        assertThat(row(3)).extracting(JobItem::status, JobItem::version).containsExactly(JobStatus.DONE, 2);
        assertThat(claimNow(3, now)).as("row 2 is not due again before its new due time").isEmpty();
        assertThat(ids(claimNow(3, now.plus(Duration.ofMinutes(5))))).containsExactly(2L);
    }

    @Test
    final void aWriteOfManyRowsTogetherCountsOnlyThoseStillHeld() throws Exception {
        Instant now = clock.instant();
        for (long id = 1; id <= 4; id++) {
            insert(id, JobStatus.WAITING, null, "main");
        }
        List<JobItem> mine = claimNow(4, now);
        Fence<JobItem> finish = new Fence<>("job_item", "status = %d, version = version + 1"
                .formatted(JobStatus.DONE.code), "version", null, JobItem::id, JobItem::version);
        int[] first = inTx(c -> finish.run(c, mine.subList(0, 1), (ps, r) -> 1));
        assertThat(first).containsExactly(1);

        // row 1's claimed version is stale now: only rows 2..4 are written
        int together = inTx(c -> finish.runTogether(c, mine, ps -> 1));
        assertThat(together).isEqualTo(3);
        assertThat(queryLong("SELECT COUNT(*) FROM job_item WHERE status = ? AND version = 2", JobStatus.DONE.code))
                .isEqualTo(4);
        int again = inTx(c -> finish.runTogether(c, mine, ps -> 1));
        assertThat(again).as("a second time: none held").isZero();
        int none = inTx(c -> finish.runTogether(c, List.<JobItem>of(), ps -> 1));
        assertThat(none).isZero();
    }
}
