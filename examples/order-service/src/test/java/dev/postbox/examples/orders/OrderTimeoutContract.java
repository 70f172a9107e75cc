package dev.postbox.examples.orders;

import dev.postbox.compensation.CompensationJob;
import dev.postbox.examples.orders.compensation.OrderTimeoutCancel;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seed 003's timeout compensation with a 1 s timeout, scanned every 200 ms by two job instances over the same
 * orders (the application's bean and a second one), plus this test calling both at the same time: every
 * order left CREATED is cancelled exactly once, with exactly one ORDER_CANCELLED event.
 */
@TestPropertySource(properties = {"order.compensation.timeout=1s", "order.compensation.interval=200ms"})
@Import(OrderTimeoutContract.SecondJob.class)
public abstract class OrderTimeoutContract extends OrderServiceE2eBase {

    /** A second instance of the same job, as a second application instance would run it. */
    @TestConfiguration(proxyBeanMethods = false)
    static class SecondJob {
        @Bean
        CompensationJob secondOrderTimeoutCancelJob(OrderTimeoutCancel timeoutCancel) {
            return timeoutCancel.newJob();
        }
    }

    @Autowired
    private List<CompensationJob> jobs;

    @Test
    void ordersNeverReservedAreCancelledOnceByConcurrentTimeoutJobs() throws Exception {
        assertThat(jobs).hasSize(2);
        String user = "timeout-" + UUID.randomUUID();
        List<String> stuck = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            stuck.add(place(user, "SKU-NONE", 1 + i % 3, "9.99"));
        }
        String confirmed = place(user, "SKU-4", 2, "4.00");

        // both jobs, from two more threads, as often as they can while the scheduled runs go on
        AtomicBoolean racing = new AtomicBoolean(true);
        AtomicInteger done = new AtomicInteger();
        ExecutorService racers = Executors.newFixedThreadPool(jobs.size());
        List<Future<?>> runs = new ArrayList<>();
        for (CompensationJob job : jobs) {
            runs.add(racers.submit(() -> {
                while (racing.get()) {
                    done.addAndGet(job.runOnce().done());
                }
                return null;
            }));
        }
        boolean cancelled;
        try {
            cancelled = await(Duration.ofSeconds(20), () -> count(
                    "SELECT count(*) FROM t_order WHERE user_id = ? AND status = 'CANCELLED'", user) == stuck.size());
        } finally {
            racing.set(false);
            for (Future<?> f : runs) {
                f.get();
            }
            racers.shutdown();
        }
        assertThat(cancelled).as("all %d orders without stock CANCELLED", stuck.size()).isTrue();
        String outbox = postbox.tables().outbox();
        String log = postbox.tables().compensationLog();
        for (String no : stuck) {
            assertThat(count("SELECT count(*) FROM " + outbox + " WHERE aggregate_id = ? AND event_type = 'ORDER_CANCELLED'", no))
                    .as("ORDER_CANCELLED events of %s", no).isEqualTo(1);
            assertThat(count("SELECT count(*) FROM " + log + " WHERE biz_type = 'ORDER' AND biz_key = ?"
                    + " AND action_type = 'TIMEOUT_CANCEL' AND compensate_status = 'DONE' AND attempts = 1", no)).isEqualTo(1);
        }
        assertThat(count("SELECT count(*) FROM t_stock_reservation r JOIN t_order o ON r.order_no = o.order_no"
                + " WHERE o.user_id = ?", user)).isEqualTo(1);
        assertThat(count("SELECT available + reserved FROM t_stock WHERE sku = 'SKU-NONE'")).isZero();
        assertThat(done.get()).as("cancellations done by this test's runs").isBetween(0, stuck.size());

        // the confirmed order is not the job's business
        assertThat(count("SELECT count(*) FROM t_order WHERE order_no = ? AND status = 'CONFIRMED'", confirmed)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM " + outbox + " WHERE aggregate_id = ? AND event_type = 'ORDER_CANCELLED'",
                confirmed)).isZero();

        // the history, as the API shows it: created, then cancelled, both published
        String first = stuck.get(0);
        assertThat(await(Duration.ofSeconds(10), () -> count("SELECT count(*) FROM " + outbox
                + " WHERE aggregate_id = ? AND publish_status = 2", first) == 2)).isTrue();
        JsonNode view = json(get("/orders/" + first));
        assertThat(view.path("status").asString()).isEqualTo("CANCELLED");
        List<String> history = new ArrayList<>();
        view.path("events").forEach(e -> history.add(e.path("eventType").asString() + "/" + e.path("status").asString()));
        assertThat(history).containsExactly("ORDER_CREATED/PUBLISHED", "ORDER_CANCELLED/PUBLISHED");
    }
}
