package dev.postbox.flow;

import dev.postbox.Postbox;
import dev.postbox.admin.AdminFilter;
import dev.postbox.compensation.CompensationResult;
import dev.postbox.message.AfterMaxRetries;
import dev.postbox.message.MessageEvent;
import dev.postbox.message.MessageWorker;
import dev.postbox.message.WorkerCycle;
import dev.postbox.operations.ActionResult;
import dev.postbox.operations.BulkPreview;
import dev.postbox.operations.BulkProgress;
import dev.postbox.operations.BulkRequest;
import dev.postbox.operations.BulkResult;
import dev.postbox.operations.EventKind;
import dev.postbox.operations.Operations;
import dev.postbox.operations.OperationsConfig;
import dev.postbox.operations.Operator;
import dev.postbox.operations.Role;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.Cycle;
import dev.postbox.relay.Relay;
import dev.postbox.relay.RelayBuilder;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.testing.Await;
import dev.postbox.testing.DatabaseContract;
import dev.postbox.testing.HeldCommits;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Postbox's own transactions (a relay recording outcomes, a worker recording a failure, a person's retry or
 * cancel) lock the rows they change and nothing else: a business transaction writing other events, or a relay
 * publishing other events, never waits for one of them, whatever the rows' neighbours in the unique, status and
 * aggregate indexes. The data sources here keep the database's default isolation (REPEATABLE READ on MariaDB,
 * where InnoDB locks index gaps): the application's, on which a person's actions run, and one handed to a relay
 * or a worker; a relay on its own pool runs too. Each of Postbox's transactions runs its real code and is held open
 * at its commit ({@link HeldCommits}) while the other transaction runs.
 */
public abstract class OwnTransactionKeyIndependenceContract extends DatabaseContract {

    /** How long the other transaction may take while Postbox's stays open. */
    private static final long NO_WAIT_SECONDS = 5;

    private final Operator ada = Operator.of("ada", Role.ADMIN);
    private HeldCommits held;
    /** Postbox on the held data source: its relays, workers and actions can be held open. */
    private Postbox own;
    private Operations ops;

    @BeforeEach
    final void heldPostbox() {
        if (own == null) {
            held = new HeldCommits(ds);
            own = Postbox.builder(held).clock(clock).source("test-service").build();
            ops = own.operations(OperationsConfig.defaults());
        }
    }

    private interface Call<T> {
        T run() throws Exception;
    }

    /**
     * Runs {@code postboxCall} on another thread until its transaction that prepared a statement {@code holds}
     * accepts stands at its commit; then {@code other} must end within {@value #NO_WAIT_SECONDS} s, waiting for no
     * lock of it. Returns what {@code postboxCall} returned once its transaction committed.
     */
    private <T> T otherNeverWaits(Predicate<String> holds, Call<T> postboxCall, String what, Call<?> other)
            throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            held.holdNext(holds);
            Future<T> first = threads.submit(postboxCall::run);
            Future<?> second = null;
            boolean waited = false;
            try {
                Await.until("Postbox's transaction at its commit", Duration.ofSeconds(30),
                        () -> held.isHeld() || first.isDone());
                if (!held.isHeld()) {
                    first.get();
                    fail("Postbox's call ended without running the statement to hold");
                }
                second = threads.submit(other::run);
                try {
                    second.get(NO_WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    waited = true;
                }
            } finally {
                held.release();
            }
            T result = first.get(2, TimeUnit.MINUTES);
            if (waited) {
                try {
                    second.get(2, TimeUnit.MINUTES); // let it end, so that it cannot touch the next test's rows
                } catch (ExecutionException ignored) {
                    // what it met once let go does not matter: it waited
                }
                fail(what + " waited for Postbox's open transaction for " + NO_WAIT_SECONDS + " s");
            }
            return result;
        } finally {
            threads.shutdownNow();
        }
    }

    /** Statements that write the admin log: the transaction of a person's change. */
    private Predicate<String> adminLogWrite() {
        return sql -> sql.startsWith("INSERT INTO " + own.tables().adminLog() + " ");
    }

    private static OutboxEvent event(String eventNo, String aggregateId) {
        return OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", aggregateId).eventType("X").channel("MQ")
                .payload("{}").build();
    }

    private static MessageEvent message(String eventNo, String type, int maxRetries) {
        return MessageEvent.builder().eventNo(eventNo).eventType(type).biz("ORDER", eventNo).payload("{}")
                .maxRetries(maxRetries).build();
    }

    private void write(String eventNo, String aggregateId) throws Exception {
        inTx(c -> postbox.outbox().write(c, event(eventNo, aggregateId)));
    }

    /** The business transaction of the tests: a new outbox event and a new message event. */
    private Void writeNew(String eventNo, String aggregateId, String messageNo) throws Exception {
        return inTx(c -> {
            assertThat(postbox.outbox().write(c, event(eventNo, aggregateId)).inserted()).isTrue();
            assertThat(postbox.messages().create(c, message(messageNo, "X", 3)).inserted()).isTrue();
            return null;
        });
    }

    /**
     * {@code n} published events of other aggregates, written first: the history a real outbox has, without which
     * the planner may find a few rows by primary key that it finds through a status index on a real table.
     */
    private void history(int n) throws Exception {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            events.add(event("H-" + i, "H-" + (i % 50)));
        }
        inTx(c -> postbox.outbox().writeAll(c, events));
        exec("UPDATE " + postbox.tables().outbox() + " SET publish_status = " + OutboxStatus.PUBLISHED.code());
    }

    private void set(String table, String eventNo, String assignments) throws SQLException {
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET " + assignments + " WHERE event_no = ?")) {
            ps.setString(1, eventNo);
            assertThat(ps.executeUpdate()).as(eventNo).isEqualTo(1);
        }
    }

    private String status(String eventNo) {
        return postbox.queries().outbox().byEventNo(eventNo).map(r -> r.status().name()).orElse(null);
    }

    private static Publisher answering(Function<OutboxRecord, PublishResult> outcome) {
        return records -> {
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord r : records) {
                out.add(CompletableFuture.completedFuture(outcome.apply(r)));
            }
            return out;
        };
    }

    private static RelayBuilder relay(Postbox p, Publisher publisher, String id) {
        return p.relay(publisher).instanceId(id).batchSize(10).poolSize(2).clockSkewCheck(false)
                .listenForNotifications(false);
    }

    /** A relay of the business side's Postbox (its own pool) that publishes everything. */
    private Cycle publishAll() {
        try (Relay relay = relay(postbox, answering(r -> PublishResult.published()), "relay-other").build()) {
            return relay.runOnce();
        }
    }

    // ---- the relay ------------------------------------------------------------------------------------------------

    private void relayRecordingAFailure(boolean handedIn) throws Exception {
        write("E-1", "A-1");
        RelayBuilder b = relay(own, answering(r -> PublishResult.retry("broker busy")), "relay-held");
        try (Relay relay = (handedIn ? b.dataSource(held) : b).build()) {
            Cycle cycle = otherNeverWaits(sql -> sql.contains("retry_count = retry_count + ?"), relay::runOnce,
                    "a business transaction writing new events", () -> writeNew("E-2", "A-2", "M-2"));
            assertThat(cycle.failed()).isEqualTo(1);
        }
        assertThat(status("E-1")).isEqualTo("FAILED");
        assertThat(status("E-2")).isEqualTo("PENDING");
    }

    @Test
    final void aRelayOnAHandedInDataSourceRecordingAFailureMakesNoNewEventWait() throws Exception {
        relayRecordingAFailure(true);
    }

    @Test
    final void aRelayOnItsOwnPoolRecordingAFailureMakesNoNewEventWait() throws Exception {
        relayRecordingAFailure(false);
    }

    @Test
    final void aRelayRecordingADeadEventMakesNoOtherRelayWait() throws Exception {
        write("E-1", "A-1");
        write("E-2", "A-2");
        try (Relay relay = relay(own, answering(r -> PublishResult.dead("poison")), "relay-held").batchSize(1)
                .dataSource(held).build()) {
            Cycle cycle = otherNeverWaits(sql -> sql.contains("retry_count = retry_count + ?"), relay::runOnce,
                    "another relay claiming and publishing another event", this::publishAll);
            assertThat(cycle.dead()).isEqualTo(1);
        }
        assertThat(status("E-1")).isEqualTo("DEAD");
        assertThat(status("E-2")).isEqualTo("PUBLISHED");
    }

    // ---- the worker -----------------------------------------------------------------------------------------------

    @Test
    final void aWorkerCancellingAnEventAfterItsLastRetryMakesNoOtherMessageWait() throws Exception {
        long other = inTx(c -> {
            assertThat(postbox.messages().create(c, message("M-1", "X", 0)).inserted()).isTrue();
            return postbox.messages().create(c, message("M-3", "Y", 3)).id();
        });
        try (MessageWorker worker = own.worker().instanceId("worker-held").dataSource(held).threads(1).batchSize(10)
                .handler("X", e -> {
                    throw new IllegalStateException("stock service down");
                }, AfterMaxRetries.CANCELLED).build()) {
            WorkerCycle cycle = otherNeverWaits(sql -> sql.contains("retry_count >= max_retry_count"), worker::runOnce,
                    "a business transaction handling another message and creating a new one", () -> inTx(c -> {
                        assertThat(postbox.messages().claim(c, other)).isTrue();
                        assertThat(postbox.messages().succeed(c, other)).isTrue();
                        return postbox.messages().create(c, message("M-4", "X", 3)).inserted();
                    }));
            assertThat(cycle.cancelled()).isEqualTo(1);
        }
        assertThat(postbox.queries().messages().byEventNo("M-1").orElseThrow().status().name()).isEqualTo("CANCELLED");
    }

    // ---- a person's actions ---------------------------------------------------------------------------------------

    @Test
    final void anAdminRetryMakesNoNeighbouringEventAndNoRelayWait() throws Exception {
        write("E-1", "A-1");
        write("E-3", "A-3");
        set(postbox.tables().outbox(), "E-1", "publish_status = " + OutboxStatus.PUBLISHED.code());
        set(postbox.tables().outbox(), "E-3", "publish_status = " + OutboxStatus.DEAD.code());
        write("E-5", "A-5");
        boolean retried = otherNeverWaits(adminLogWrite(), () -> own.admin().retry("E-3", "ada", "fixed"),
                "a business transaction writing the event_no before E-3, then a relay publishing E-5", () -> {
                    writeNew("E-2", "A-2", "M-2");
                    return publishAll();
                });
        assertThat(retried).isTrue();
        assertThat(status("E-5")).isEqualTo("PUBLISHED");
    }

    @Test
    final void anAdminCancelOfTheNewestPendingEventMakesNoNewEventWait() throws Exception {
        write("E-1", "A-1");
        write("E-2", "A-2");
        boolean cancelled = otherNeverWaits(adminLogWrite(), () -> own.admin().cancel("E-2", "ada", "wrong order"),
                "a business transaction writing new events", () -> writeNew("E-3", "A-3", "M-3"));
        assertThat(cancelled).isTrue();
        assertThat(status("E-2")).isEqualTo("CANCELLED");
    }

    @Test
    final void anAdminRetryOfAllDeadEventsMakesNoRelayWait() throws Exception {
        history(300);
        write("E-1", "A-1");
        write("E-2", "A-2");
        set(postbox.tables().outbox(), "E-1", "publish_status = " + OutboxStatus.DEAD.code());
        set(postbox.tables().outbox(), "E-2", "publish_status = " + OutboxStatus.DEAD.code());
        write("E-5", "A-5");
        int retried = otherNeverWaits(adminLogWrite(),
                () -> own.admin().retryWhere(AdminFilter.status(OutboxStatus.DEAD, 100), "ada", "fixed"),
                "a relay publishing E-5", this::publishAll);
        assertThat(retried).isEqualTo(2);
        assertThat(status("E-5")).isEqualTo("PUBLISHED");
    }

    @Test
    final void anOperatorsRetryMakesNoNeighbouringEventAndNoRelayWait() throws Exception {
        write("E-1", "A-1");
        write("E-3", "A-3");
        set(postbox.tables().outbox(), "E-1", "publish_status = " + OutboxStatus.PUBLISHED.code());
        set(postbox.tables().outbox(), "E-3", "publish_status = " + OutboxStatus.FAILED.code());
        write("E-5", "A-5");
        ActionResult result = otherNeverWaits(adminLogWrite(), () -> ops.retry(EventKind.OUTBOX, "E-3", "fixed", ada),
                "a business transaction writing the event_no before E-3, then a relay publishing E-5", () -> {
                    writeNew("E-2", "A-2", "M-2");
                    return publishAll();
                });
        assertThat(result.changed()).isEqualTo(1);
        assertThat(status("E-5")).isEqualTo("PUBLISHED");
    }

    @Test
    final void anOperatorsCancelOfTheNewestPendingMessageMakesNoNewMessageWait() throws Exception {
        inTx(c -> {
            postbox.messages().create(c, message("M-1", "X", 3));
            return postbox.messages().create(c, message("M-2", "X", 3));
        });
        ActionResult result = otherNeverWaits(adminLogWrite(), () -> ops.cancel(EventKind.MESSAGE, "M-2", "wrong", ada),
                "a business transaction writing new events", () -> writeNew("E-3", "A-3", "M-3"));
        assertThat(result.changed()).isEqualTo(1);
    }

    @Test
    final void cancellingASequenceMakesNoOtherAggregateWait() throws Exception {
        write("E-1", "A-1");
        write("E-1b", "A-1");
        write("E-3", "A-3");
        ActionResult result = otherNeverWaits(adminLogWrite(), () -> ops.cancelSequence("ORDER", "A-1", "wrong", ada),
                "a business transaction writing an event of an aggregate between A-1 and A-3",
                () -> writeNew("E-2", "A-2", "M-2"));
        assertThat(result.changed()).isEqualTo(2);
        assertThat(status("E-3")).isEqualTo("PENDING");
    }

    @Test
    final void retryingACompensationMakesNoNeighbouringCompensationWait() throws Exception {
        for (String key : new String[] {"K-1", "K-3"}) {
            inTx(c -> postbox.compensations().once(c, "ORDER", key, "CANCEL", conn -> {
                throw new IllegalStateException("not yet");
            }).outcome());
        }
        ActionResult result = otherNeverWaits(adminLogWrite(),
                () -> ops.retryCompensation("ORDER", "K-3", "CANCEL", "fixed", ada),
                "a business transaction running the compensation of K-2", () -> inTx(c -> {
                    CompensationResult<String> r = postbox.compensations().once(c, "ORDER", "K-2", "CANCEL", conn -> "done");
                    assertThat(r.ran()).isTrue();
                    return r;
                }));
        assertThat(result.changed()).isEqualTo(1);
    }

    @Test
    final void aBulkRetryMakesNoRelayWait() throws Exception {
        history(300);
        write("E-1", "A-1");
        write("E-2", "A-2");
        set(postbox.tables().outbox(), "E-1", "publish_status = " + OutboxStatus.DEAD.code());
        set(postbox.tables().outbox(), "E-2", "publish_status = " + OutboxStatus.DEAD.code());
        write("E-5", "A-5");
        BulkRequest request = new BulkRequest(EventKind.OUTBOX, BulkRequest.Action.RETRY, "status:dead", 10, "fixed");
        BulkPreview preview = ops.preview(request, ada);
        assertThat(preview.matching()).isEqualTo(2);
        BulkResult result = otherNeverWaits(adminLogWrite(), () -> ops.bulk(request, preview.token(), BulkProgress.none(), ada),
                "a relay publishing E-5", this::publishAll);
        assertThat(result.changed()).isEqualTo(2);
        assertThat(status("E-5")).isEqualTo("PUBLISHED");
    }
}
