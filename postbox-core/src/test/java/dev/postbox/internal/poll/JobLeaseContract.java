package dev.postbox.internal.poll;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.common.ValidationException;
import dev.postbox.jdbc.Dialect;
import dev.postbox.testing.Await;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A named lease across processes on a real database: two processes (each its own pool and owner) never
 * both hold it; it passes on only by release or by expiry on the database's clock; concurrent creators of
 * a missing row leave exactly one winner and no exception.
 */
public abstract class JobLeaseContract extends DatabaseContract {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final Duration SHORT = Duration.ofSeconds(1);
    private static final int THREADS = 8;
    private static final int ROUNDS = 10;

    private Dialect dialect;
    private String table;
    private HikariDataSource poolA;
    private HikariDataSource poolB;

    @BeforeAll
    final void openPools() {
        dialect = postbox.dialect();
        table = postbox.tables().jobLease();
        poolA = Pools.own(ds, "lease-a", THREADS);
        poolB = Pools.own(ds, "lease-b", THREADS);
    }

    @AfterAll
    final void closePools() {
        for (HikariDataSource pool : new HikariDataSource[] {poolA, poolB}) {
            if (pool != null) {
                pool.close();
            }
        }
    }

    @BeforeEach
    final void emptyLeases() throws Exception {
        exec("DELETE FROM " + table);
    }

    private JobLease lease(DataSource pool, String job, String owner, Duration ttl) {
        return new JobLease(dialect, pool, table, job, owner, ttl);
    }

    @Test
    final void ofTwoOwnersOnlyTheFirstAcquires() throws Exception {
        JobLease a = lease(poolA, "sweep", "node-a", TTL);
        JobLease b = lease(poolB, "sweep", "node-b", TTL);
        Instant before = databaseNow();

        assertThat(a.acquire()).isTrue();
        assertThat(b.acquire()).isFalse();
        assertThat(a.acquire()).as("again, by its holder").isTrue();

        assertThat(a.held()).isTrue();
        assertThat(b.held()).isFalse();
        JobLease.Holder holder = b.holder().orElseThrow();
        assertThat(holder.owner()).isEqualTo("node-a");
        assertThat(holder.until()).as("ttl on the database's clock")
                .isBetween(before.plus(TTL).minusMillis(5), databaseNow().plus(TTL).plusMillis(5));
        assertThat(count(table)).isEqualTo(1);
    }

    @Test
    final void theHolderRenewsAndTheOtherStillCannot() throws Exception {
        JobLease a = lease(poolA, "sweep", "node-a", TTL);
        JobLease b = lease(poolB, "sweep", "node-b", TTL);
        assertThat(a.acquire()).isTrue();
        Instant first = a.holder().orElseThrow().until();
        long version = version("sweep");
        Instant acquired = time("acquired_time", "sweep");

        Await.until("the database clock to move on", Duration.ofSeconds(2), () -> databaseNowUnchecked().isAfter(first.minus(TTL).plusMillis(10)));
        assertThat(a.renew()).isTrue();
        assertThat(a.held()).isTrue();

        assertThat(b.acquire()).isFalse();
        assertThat(b.renew()).as("never taken").isFalse();
        assertThat(b.held()).isFalse();
        assertThat(a.holder().orElseThrow().until()).as("extended").isAfter(first);
        assertThat(version("sweep")).isEqualTo(version + 1);
        assertThat(time("acquired_time", "sweep")).as("a renewal is no new take").isEqualTo(acquired);
        assertThat(a.holder().orElseThrow().owner()).isEqualTo("node-a");
    }

    @Test
    final void afterReleaseTheOtherAcquires() throws Exception {
        JobLease a = lease(poolA, "sweep", "node-a", TTL);
        JobLease b = lease(poolB, "sweep", "node-b", TTL);
        assertThat(a.acquire()).isTrue();

        b.release();
        assertThat(a.holder().orElseThrow().owner()).as("a release by another changes nothing").isEqualTo("node-a");
        assertThat(b.acquire()).isFalse();

        a.release();
        assertThat(a.held()).isFalse();
        assertThat(a.holder()).isEmpty();
        assertThat(queryString("SELECT owner FROM " + table + " WHERE job_name = 'sweep'")).isNull();
        assertThat(queryString("SELECT lease_until FROM " + table + " WHERE job_name = 'sweep'")).isNull();

        assertThat(b.acquire()).isTrue();
        assertThat(b.held()).isTrue();
        assertThat(a.renew()).as("released, so lost").isFalse();
        assertThat(a.acquire()).isFalse();
        assertThat(b.holder().orElseThrow().owner()).isEqualTo("node-b");
    }

    @Test
    final void afterExpiryTheOtherTakesOverAndTheFirstKnowsItLostIt() throws Exception {
        JobLease a = lease(poolA, "sweep", "node-a", SHORT);
        JobLease b = lease(poolB, "sweep", "node-b", SHORT);
        long start = System.nanoTime();
        assertThat(a.acquire()).isTrue();
        Instant until = a.holder().orElseThrow().until();
        assertThat(b.acquire()).isFalse();

        Await.until("node-a's held() to end without any SQL", Duration.ofSeconds(3), () -> !a.held());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the lease's ttl less the margin")
                .isGreaterThanOrEqualTo(SHORT.minus(SHORT.dividedBy(10)));
        assertThat(databaseNow()).as("held() ends before the database's lease does").isBefore(until.plusMillis(1));

        Await.until("node-b to take the expired lease", Duration.ofSeconds(3), b::acquire);
        assertThat(databaseNow()).as("only once expired on the database's clock").isAfter(until);
        assertThat(b.held()).isTrue();
        assertThat(a.renew()).as("taken over").isFalse();
        assertThat(a.held()).isFalse();
        assertThat(a.acquire()).isFalse();
        assertThat(b.holder().orElseThrow().owner()).isEqualTo("node-b");
        assertThat(time("acquired_time", "sweep")).as("a takeover is a new take").isAfterOrEqualTo(until);
    }

    @Test
    final void anExpiredLeaseIsNotRenewedEvenByItsOwner() throws Exception {
        JobLease a = lease(poolA, "sweep", "node-a", SHORT);
        assertThat(a.acquire()).isTrue();
        Instant until = a.holder().orElseThrow().until();
        Await.until("the lease to expire on the database's clock", Duration.ofSeconds(3),
                () -> databaseNowUnchecked().isAfter(until));
        assertThat(a.holder()).as("expired is not held").isEmpty();
        assertThat(a.renew()).isFalse();
        assertThat(a.held()).isFalse();
        assertThat(a.acquire()).as("but free to take again").isTrue();
        assertThat(a.held()).isTrue();
    }

    @Test
    final void racingCreatorsOfAMissingRowLeaveExactlyOneWinner() throws Exception {
        // 8 threads of each of 2 processes, every contender its own owner: exactly one true per round
        ExecutorService threads = Executors.newFixedThreadPool(2 * THREADS);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                String job = "race-" + round;
                List<JobLease> contenders = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    contenders.add(lease(poolA, job, "a-" + t, TTL));
                    contenders.add(lease(poolB, job, "b-" + t, TTL));
                }
                List<Boolean> results = raceAcquire(threads, contenders);
                List<String> winners = new ArrayList<>();
                for (int i = 0; i < contenders.size(); i++) {
                    if (results.get(i)) {
                        winners.add(contenders.get(i).owner());
                    }
                }
                assertThat(winners).as("round " + round).hasSize(1);
                assertThat(contenders.get(0).holder().orElseThrow().owner()).isEqualTo(winners.get(0));
                assertThat(contenders.stream().filter(JobLease::held).map(JobLease::owner).toList()).isEqualTo(winners);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(count(table)).isEqualTo(ROUNDS);
    }

    @Test
    final void twoOwnersRacingWithEightThreadsEachNeverBothHoldIt() throws Exception {
        // the same owner may answer true on several threads (a holder's acquire renews); the other never does
        ExecutorService threads = Executors.newFixedThreadPool(2 * THREADS);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                String job = "pair-" + round;
                List<JobLease> contenders = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    contenders.add(lease(poolA, job, "node-a", TTL));
                    contenders.add(lease(poolB, job, "node-b", TTL));
                }
                List<Boolean> results = raceAcquire(threads, contenders);
                List<String> winners = new ArrayList<>();
                for (int i = 0; i < contenders.size(); i++) {
                    if (results.get(i)) {
                        winners.add(contenders.get(i).owner());
                    }
                }
                assertThat(winners).as("round " + round).isNotEmpty();
                assertThat(winners.stream().distinct().toList()).as("round " + round + ": one owner").hasSize(1);
                assertThat(contenders.get(0).holder().orElseThrow().owner()).isEqualTo(winners.get(0));
            }
        } finally {
            threads.shutdownNow();
        }
    }

    /** Every contender's acquire() at once; any exception fails the test. */
    private static List<Boolean> raceAcquire(ExecutorService threads, List<JobLease> contenders) throws Exception {
        CountDownLatch ready = new CountDownLatch(contenders.size());
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Boolean>> futures = new ArrayList<>();
        for (JobLease lease : contenders) {
            Callable<Boolean> call = () -> {
                ready.countDown();
                go.await();
                return lease.acquire();
            };
            futures.add(threads.submit(call));
        }
        assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
        go.countDown();
        List<Boolean> results = new ArrayList<>();
        for (Future<Boolean> f : futures) {
            results.add(f.get(30, TimeUnit.SECONDS));
        }
        return results;
    }

    @Test
    final void badArgumentsAreRefusedNamingTheFieldAndTheLimit() {
        refused(() -> lease(poolA, " ", "node-a", TTL), "jobName", "blank");
        refused(() -> lease(poolA, null, "node-a", TTL), "jobName", "required");
        refused(() -> lease(poolA, "j".repeat(129), "node-a", TTL), "jobName", "at most 128");
        refused(() -> lease(poolA, "sweep", "", TTL), "owner", "blank");
        refused(() -> lease(poolA, "sweep", "o".repeat(129), TTL), "owner", "at most 128");
        refused(() -> lease(poolA, "sweep", "node-a", null), "ttl", "required");
        refused(() -> lease(poolA, "sweep", "node-a", Duration.ofMillis(999)), "ttl", "between PT1S and PT1H");
        refused(() -> lease(poolA, "sweep", "node-a", Duration.ofHours(1).plusMillis(1)), "ttl", "between PT1S and PT1H");
        assertThat(lease(poolA, "j".repeat(128), "o".repeat(128), Duration.ofHours(1)).acquire()).as("the limits themselves").isTrue();
        assertThat(lease(poolA, "one-second", "node-a", SHORT).acquire()).isTrue();
    }

    private static void refused(Runnable call, String field, String limit) {
        assertThatThrownBy(call::run)
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo(field))
                .hasMessageStartingWith(field + ":")
                .hasMessageContaining(limit);
    }

    private long version(String job) throws Exception {
        return queryLong("SELECT version FROM " + table + " WHERE job_name = ?", job);
    }

    private Instant time(String column, String job) throws Exception {
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT " + column + " FROM " + table + " WHERE job_name = ?")) {
            ps.setString(1, job);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return dialect.readTime(rs, column);
            }
        }
    }

    private Instant databaseNow() throws Exception {
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT " + dialect.currentTimeSql() + " AS db_now");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return dialect.readTime(rs, "db_now");
        }
    }

    private Instant databaseNowUnchecked() {
        try {
            return databaseNow();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
