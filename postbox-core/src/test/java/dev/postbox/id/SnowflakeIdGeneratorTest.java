package dev.postbox.id;

import dev.postbox.ValidationException;
import dev.postbox.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SnowflakeIdGeneratorTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T00:00:00Z"));

    @Test
    void encodesTimeAndNode() {
        long id = new SnowflakeIdGenerator(513, clock).nextId();
        assertThat(id).isPositive();
        assertThat(SnowflakeIdGenerator.timeOf(id)).isEqualTo(clock.instant());
        assertThat(SnowflakeIdGenerator.nodeOf(id)).isEqualTo(513);
    }

    @Test
    void neverGoesBackwardsWhenTheClockStepsBack() {
        SnowflakeIdGenerator ids = new SnowflakeIdGenerator(1, clock);
        long previous = ids.nextId();
        for (int i = 0; i < 10_000; i++) {
            clock.advance(Duration.ofMillis(i % 7 == 0 ? -1_000 : 1));
            long next = ids.nextId();
            assertThat(next).isGreaterThan(previous);
            previous = next;
        }
    }

    @Test
    void borrowsTheNextMillisecondWhenOneIsUsedUp() {
        SnowflakeIdGenerator ids = new SnowflakeIdGenerator(1, clock);
        Set<Long> seen = new HashSet<>();
        long previous = 0;
        for (int i = 0; i < 4096 * 3; i++) {
            long id = ids.nextId();
            assertThat(id).isGreaterThan(previous);
            assertThat(seen.add(id)).isTrue();
            previous = id;
        }
        assertThat(SnowflakeIdGenerator.timeOf(previous)).isEqualTo(clock.instant().plusMillis(2));
    }

    @Test
    void isUniqueAcrossThreads() throws Exception {
        SnowflakeIdGenerator ids = new SnowflakeIdGenerator(7, java.time.Clock.systemUTC());
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        for (int t = 0; t < 4; t++) {
            pool.submit(() -> {
                for (int i = 0; i < 50_000; i++) {
                    seen.add(ids.nextId());
                }
            });
        }
        pool.shutdown();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(seen).hasSize(200_000);
    }

    @Test
    void rejectsANodeIdOutOfRange() {
        assertThatThrownBy(() -> new SnowflakeIdGenerator(1024, clock)).isInstanceOf(ValidationException.class)
                .hasMessageContaining("nodeId").hasMessageContaining("1023");
        assertThatThrownBy(() -> new SnowflakeIdGenerator(-1, clock)).isInstanceOf(ValidationException.class);
    }
}
