package dev.postbox.internal;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class NotifyGateTest {

    @Test
    void theFirstWriteOfAnIntervalPassesAndTheOthersDoNot() throws Exception {
        NotifyGate gate = new NotifyGate(Duration.ofMillis(300));
        assertThat(gate.pass()).as("the first write ever").isTrue();
        assertThat(gate.pass()).as("right after it").isFalse();
        assertThat(gate.pass()).isFalse();
        Thread.sleep(400);
        assertThat(gate.pass()).as("once the interval is over").isTrue();
        assertThat(gate.pass()).isFalse();
    }

    @Test
    void concurrentWritersLetExactlyOneThroughPerInterval() throws Exception {
        NotifyGate gate = new NotifyGate(Duration.ofSeconds(1));
        AtomicInteger passed = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            for (int t = 0; t < 8; t++) {
                pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 1000; i++) {
                        if (gate.pass()) {
                            passed.incrementAndGet();
                        }
                    }
                    return null;
                });
            }
            start.countDown();
        } finally {
            pool.shutdown();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(passed).hasValue(1);
    }

    @Test
    void aZeroIntervalLetsEveryWriteNotify() {
        for (int i = 0; i < 100; i++) {
            assertThat(NotifyGate.EVERY_WRITE.pass()).isTrue();
        }
        assertThat(new NotifyGate(Duration.ZERO).pass()).isTrue();
    }
}
