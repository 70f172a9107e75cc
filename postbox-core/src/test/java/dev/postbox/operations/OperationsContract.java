package dev.postbox.operations;

import dev.postbox.common.PostboxException;
import dev.postbox.common.ValidationException;
import dev.postbox.compensation.CompensationResult;
import dev.postbox.message.MessageEvent;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.query.Page;
import dev.postbox.query.PageRequest;
import dev.postbox.relay.Relay;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The operations service ({@link Operations}, {@code postbox.operations()}) on a real database: who may do what,
 * every read (search, detail, blocked aggregates, audit) and every audited change (retry, cancel, sequence,
 * compensation, bulk with its dry run), checked against the rows the database holds and, for blocking, against
 * what a real relay does. The overview and the plans of the new statements are in {@link OperationsOverviewContract}
 * and {@link OperationsIndexContract}.
 */
public abstract class OperationsContract extends DatabaseContract {

    protected final Operator viewer = Operator.of("vera", Role.VIEWER);
    protected final Operator operator = Operator.of("otto", Role.OPERATOR);
    protected final Operator admin = Operator.of("ada", Role.ADMIN);
    protected Operations ops;

    @BeforeEach
    final void freshOperations() throws SQLException {
        OperationsFixture.emptyOperationsTables(ds, postbox);
        ops = postbox.operations(OperationsConfig.defaults());
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    protected void write(String eventNo, String type, String id, String topic) throws Exception {
        inTx(c -> postbox.outbox().write(c, OutboxEvent.builder().eventNo(eventNo).aggregate(type, id)
                .eventType("ORDER_CHANGED").channel("MQ").topic(topic).header("tenantId", "t1").traceId("tr-" + id)
                .payload("{\"card\":\"4111-1111\",\"no\":\"" + eventNo + "\"}").build()));
        clock.advance(Duration.ofMillis(10));
    }

    protected void set(String eventNo, String assignments) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "UPDATE " + postbox.tables().outbox() + " SET " + assignments + " WHERE event_no = ?")) {
            ps.setString(1, eventNo);
            assertThat(ps.executeUpdate()).as(eventNo).isEqualTo(1);
        }
    }

    protected String status(String eventNo) throws SQLException {
        return postbox.queries().outbox().byEventNo(eventNo).map(r -> r.status().name()).orElse(null);
    }

    protected long actions() throws SQLException {
        return count(postbox.tables().adminAction());
    }

    /** A publisher that answers each event by {@code outcome}. */
    protected static Publisher answering(Function<OutboxRecord, PublishResult> outcome) {
        return records -> {
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord r : records) {
                out.add(CompletableFuture.completedFuture(outcome.apply(r)));
            }
            return out;
        };
    }

    /** Runs a relay until a cycle claims nothing. */
    protected void drain(Publisher publisher, Set<String> unorderedTopics) {
        try (Relay relay = postbox.relay(publisher).instanceId("relay-t").batchSize(100).poolSize(2)
                .clockSkewCheck(false).unorderedTopics(unorderedTopics).build()) {
            for (int i = 0; i < 1000; i++) {
                if (relay.runOnce().claimed() == 0) {
                    return;
                }
            }
            throw new AssertionError("relay did not drain");
        }
    }

    private static final Function<OutboxRecord, PublishResult> POISON = r -> r.eventNo().contains("POISON")
            ? PublishResult.dead("poison: SKU-POISON rejected by stock")
            : r.eventNo().contains("FLAKY") ? PublishResult.retry("broker busy") : PublishResult.published();

    // ---- permissions ------------------------------------------------------------------------------------------

    @Test
    final void aViewerLooksButEveryChangeIsRefusedBeforeAnythingIsWritten() throws Exception {
        write("E-1", "ORDER", "ORD-1", "orders");
        set("E-1", "publish_status = 5, fail_reason = 'poison'");
        assertThat(ops.search(EventKind.OUTBOX, "ORD-1", PageRequest.first(10), viewer).items()).hasSize(1);
        assertThat(ops.event(EventKind.OUTBOX, "E-1", viewer)).isPresent();
        assertThat(ops.blockedAggregates(PageRequest.first(10), viewer).items()).hasSize(1);
        assertThat(ops.audit(AuditQuery.all(), PageRequest.first(10), viewer).items()).isEmpty();
        assertThat(ops.overview(viewer).outbox().dead()).isEqualTo(1);
        BulkRequest bulk = new BulkRequest(EventKind.OUTBOX, BulkRequest.Action.RETRY, "status:dead", 10, "fixed");
        List<Runnable> changes = List.of(
                () -> ops.retry(EventKind.OUTBOX, "E-1", "fixed", viewer),
                () -> ops.cancel(EventKind.OUTBOX, "E-1", "fixed", viewer),
                () -> ops.cancelSequence("ORDER", "ORD-1", "fixed", viewer),
                () -> ops.retryCompensation("ORDER", "ORD-1", "CANCEL", "fixed", viewer),
                () -> ops.preview(bulk, viewer),
                () -> ops.bulk(bulk, "token", BulkProgress.none(), viewer),
                () -> ops.payload(EventKind.OUTBOX, "E-1", "look", viewer));
        for (Runnable change : changes) {
            assertThatThrownBy(change::run).isInstanceOfSatisfying(PermissionDeniedException.class,
                    e -> assertThat(e.operator()).isEqualTo("vera")).hasMessageStartingWith("vera may not");
        }
        assertThat(status("E-1")).isEqualTo("DEAD");
        assertThat(actions()).isZero();
        assertThat(count(postbox.tables().adminLog())).isZero();
        assertThatThrownBy(() -> ops.retry(EventKind.OUTBOX, "E-1", null, viewer))
                .as("the permission is checked before the input").isInstanceOf(PermissionDeniedException.class);
    }

    @Test
    final void anOperatorFixesButRevealsAPayloadOnlyWhenGrantedAndReadOnlyRefusesEveryChange() throws Exception {
        write("E-1", "ORDER", "ORD-1", "orders");
        set("E-1", "publish_status = 5");
        assertThatThrownBy(() -> ops.payload(EventKind.OUTBOX, "E-1", "look", operator))
                .isInstanceOfSatisfying(PermissionDeniedException.class,
                        e -> assertThat(e.permission()).isEqualTo(Permission.REVEAL_PAYLOAD));
        assertThat(ops.payload(EventKind.OUTBOX, "E-1", "customer asked", operator.with(Permission.REVEAL_PAYLOAD)))
                .get().extracting(RevealedPayload::payload).asString().contains("4111");
        assertThat(ops.retry(EventKind.OUTBOX, "E-1", "broker fixed", operator).changed()).isEqualTo(1);

        Operations readOnly = postbox.operations(OperationsConfig.defaults().readOnly(true));
        set("E-1", "publish_status = 5");
        BulkRequest bulk = new BulkRequest(EventKind.OUTBOX, BulkRequest.Action.RETRY, "status:dead", 10, "fixed");
        long before = actions();
        for (Runnable change : List.<Runnable>of(
                () -> readOnly.retry(EventKind.OUTBOX, "E-1", "x", admin),
                () -> readOnly.cancel(EventKind.MESSAGE, "M-1", "x", admin),
                () -> readOnly.cancelSequence("ORDER", "ORD-1", "x", admin),
                () -> readOnly.retryCompensation("ORDER", "ORD-1", "CANCEL", "x", admin),
                () -> readOnly.preview(bulk, admin),
                () -> readOnly.bulk(bulk, "t", null, admin))) {
            assertThatThrownBy(change::run).isInstanceOf(PermissionDeniedException.class).hasMessageContaining("read-only");
        }
        assertThat(actions()).isEqualTo(before);
        assertThat(status("E-1")).isEqualTo("DEAD");
        assertThat(readOnly.search(EventKind.OUTBOX, "status:dead", PageRequest.first(5), admin).items()).hasSize(1);
        assertThat(readOnly.payload(EventKind.OUTBOX, "E-1", "audit", admin)).as("a reveal changes no event").isPresent();
    }

    // ---- one event --------------------------------------------------------------------------------------------

    @Test
    final void retryAndCancelChangeOneEventInOneAuditedTransactionWithTheStatusBeforeAndAfter() throws Exception {
        write("E-1", "ORDER", "ORD-1", "orders");
        write("E-2", "ORDER", "ORD-2", "orders");
        set("E-1", "publish_status = 5, retry_count = 6, lease_expiries = 2, fail_reason = 'poison'");

        ActionResult retried = ops.retry(EventKind.OUTBOX, "E-1", "stock service fixed", operator);
        assertThat(retried.changed()).isEqualTo(1);
        assertThat(retried.message()).contains("DEAD -> PENDING");
        assertThat(retried.changes()).singleElement().satisfies(ch -> {
            assertThat(ch.eventNo()).isEqualTo("E-1");
            assertThat(ch.fromStatus()).isEqualTo("DEAD");
            assertThat(ch.toStatus()).isEqualTo("PENDING");
            assertThat(ch.action()).isEqualTo("RETRY");
            assertThat(ch.actor()).isEqualTo("otto");
            assertThat(ch.actionId()).isEqualTo(retried.auditId());
        });
        OutboxRecord e1 = postbox.queries().outbox().byEventNo("E-1").orElseThrow();
        assertThat(e1.status().name()).isEqualTo("PENDING");
        assertThat(e1.retryCount()).isZero();
        assertThat(e1.leaseExpiries()).isZero();
        AuditEntry entry = ops.audit(AuditQuery.all(), PageRequest.first(5), viewer).items().get(0);
        assertThat(entry).extracting(AuditEntry::id, AuditEntry::action, AuditEntry::target, AuditEntry::filter,
                AuditEntry::changed, AuditEntry::status, AuditEntry::actor, AuditEntry::reason)
                .containsExactly(retried.auditId(), "RETRY", "OUTBOX", "E-1", 1, "DONE", "otto", "stock service fixed");
        assertThat(entry.finishTime()).isEqualTo(START.plusMillis(20));

        ActionResult cancelled = ops.cancel(EventKind.OUTBOX, "E-2", "duplicate order", operator);
        assertThat(cancelled.changes()).extracting(AuditChange::fromStatus, AuditChange::toStatus)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("PENDING", "CANCELLED"));
        assertThat(status("E-2")).isEqualTo("CANCELLED");

        ActionResult nothing = ops.retry(EventKind.OUTBOX, "E-2", "again", operator);
        assertThat(nothing.changed()).isZero();
        assertThat(nothing.message()).contains("E-2 is CANCELLED").contains("FAILED and DEAD");
        assertThat(ops.cancel(EventKind.OUTBOX, "NOPE", "typo", operator).message()).contains("no outbox event has event_no NOPE");
        assertThat(actions()).as("an action that changed nothing is recorded too").isEqualTo(4);
        assertThat(count(postbox.tables().adminLog())).isEqualTo(2);
    }

    @Test
    final void messageEventsAreRetriedAndCancelledLikeOutboxEvents() throws Exception {
        for (String no : List.of("M-1", "M-2", "M-3")) {
            inTx(c -> postbox.messages().create(c, MessageEvent.builder().eventNo(no).eventType("STOCK_RESERVE")
                    .biz("ORDER", "ORD-1").payload("{}").build()));
        }
        exec("UPDATE " + postbox.tables().message() + " SET event_status = 5, retry_count = 3 WHERE event_no = 'M-1'");
        exec("UPDATE " + postbox.tables().message() + " SET event_status = 3 WHERE event_no = 'M-2'");
        ActionResult r = ops.retry(EventKind.MESSAGE, "M-1", "handler fixed", operator);
        assertThat(r.changes()).extracting(AuditChange::fromStatus, AuditChange::toStatus)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("DEAD", "PENDING"));
        assertThat(r.changes().get(0).table()).isEqualTo(postbox.tables().message());
        assertThat(postbox.queries().messages().byEventNo("M-1").orElseThrow().retryCount()).isZero();
        assertThat(ops.cancel(EventKind.MESSAGE, "M-2", "not needed", operator).changed()).isEqualTo(1);
        assertThat(postbox.queries().messages().byEventNo("M-2").orElseThrow().status().name()).isEqualTo("CANCELLED");
        assertThat(ops.retry(EventKind.MESSAGE, "M-3", "x", operator).message()).contains("M-3 is PENDING");
        assertThat(ops.retry(EventKind.OUTBOX, "M-1", "x", operator).changed()).as("another table").isZero();
    }

    @Test
    final void theAdminApiWritesTheSameAuditLog() throws Exception {
        write("E-1", "ORDER", "ORD-1", "orders");
        write("E-2", "ORDER", "ORD-2", "orders");
        set("E-1", "publish_status = 5");
        set("E-2", "publish_status = 5");
        assertThat(postbox.admin().retry("E-1", "ops@example.com", "broker back")).isTrue();
        assertThat(postbox.admin().cancelWhere(dev.postbox.admin.AdminFilter.status(dev.postbox.outbox.OutboxStatus.DEAD, 10),
                "ops@example.com", "clean up")).isEqualTo(1);
        List<AuditEntry> entries = ops.audit(new AuditQuery("ops@example.com", null, null, null, null),
                PageRequest.first(10), viewer).items();
        assertThat(entries).extracting(AuditEntry::action, AuditEntry::filter, AuditEntry::changed, AuditEntry::cap)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("BULK_CANCEL", "status:dead", 1, 10),
                        org.assertj.core.groups.Tuple.tuple("RETRY", "E-1", 1, null));
        assertThat(ops.auditChanges(entries.get(0).id(), PageRequest.first(10), viewer).items())
                .extracting(AuditChange::eventNo, AuditChange::fromStatus, AuditChange::toStatus)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("E-2", "DEAD", "CANCELLED"));
        assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().adminLog() + " WHERE action_id IS NULL")).isZero();
    }

    // ---- blocked aggregates, against a real relay -------------------------------------------------------------

    @Test
    final void theConsoleListsExactlyTheAggregatesTheRelayHoldsBack() throws Exception {
        write("A1-POISON", "ORDER", "A1", "orders");     // DEAD head, two events wait
        write("A1-2", "ORDER", "A1", "orders");
        write("A1-3", "ORDER", "A1", "orders");
        write("A2-1", "ORDER", "A2", "orders");          // flows
        write("A2-2", "ORDER", "A2", "orders");
        write("A3-1", "ORDER", "A3", "orders");          // published, then a DEAD head, one waits
        write("A3-POISON", "ORDER", "A3", "orders");
        write("A3-3", "ORDER", "A3", "orders");
        write("A4-FLAKY", "ORDER", "A4", "orders");      // FAILED head (retry not due), one waits
        write("A4-2", "ORDER", "A4", "orders");
        write("A5-POISON", "ORDER", "A5", "audit");      // DEAD, but in an unordered topic: blocks nothing
        write("A5-2", "ORDER", "A5", "orders");
        write("A6-POISON", "ORDER", "A6", "orders");     // DEAD head with nothing behind it: still holds A6 back
        drain(answering(POISON), Set.of("audit"));
        ops = postbox.operations(OperationsConfig.defaults().unorderedTopics(Set.of("audit")));
        write("A7-1", "ORDER", "A7", "orders");          // a DEAD event behind a PENDING one is not (yet) a head
        write("A7-2", "ORDER", "A7", "orders");
        set("A7-2", "publish_status = 5, fail_reason = 'poison'");

        Page<BlockedAggregate> blocked = ops.blockedAggregates(PageRequest.first(50), viewer);
        assertThat(blocked.items()).extracting(BlockedAggregate::aggregateId, b -> b.head().eventNo(),
                        b -> b.head().status(), BlockedAggregate::waitingBehind)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("A1", "A1-POISON", "DEAD", 2L),
                        org.assertj.core.groups.Tuple.tuple("A3", "A3-POISON", "DEAD", 1L),
                        org.assertj.core.groups.Tuple.tuple("A4", "A4-FLAKY", "FAILED", 1L),
                        org.assertj.core.groups.Tuple.tuple("A6", "A6-POISON", "DEAD", 0L));
        assertThat(blocked.nextCursor()).isNull();
        // the relay agrees: exactly the listed aggregates have events it left PENDING
        assertThat(List.of("A1-2", "A1-3", "A3-3", "A4-2")).allSatisfy(no -> assertThat(status(no)).isEqualTo("PENDING"));
        assertThat(List.of("A2-1", "A2-2", "A3-1", "A5-2")).allSatisfy(no -> assertThat(status(no)).isEqualTo("PUBLISHED"));
        assertThat(ops.overview(viewer).blocked()).isEqualTo(4);
        Page<BlockedAggregate> first = ops.blockedAggregates(PageRequest.first(3), viewer);
        assertThat(first.items()).hasSize(3);
        assertThat(ops.blockedAggregates(PageRequest.after(first.nextCursor(), 3), viewer).items())
                .extracting(BlockedAggregate::aggregateId).containsExactly("A6");

        // cancel the head: the relay releases the rest
        assertThat(ops.cancel(EventKind.OUTBOX, "A1-POISON", "poison order, refunded", operator).changed()).isEqualTo(1);
        assertThat(ops.blockedAggregates(PageRequest.first(50), viewer).items()).extracting(BlockedAggregate::aggregateId)
                .containsExactly("A3", "A4", "A6");
        drain(answering(POISON), Set.of("audit"));
        assertThat(List.of("A1-2", "A1-3", "A7-1")).allSatisfy(no -> assertThat(status(no)).isEqualTo("PUBLISHED"));
        assertThat(ops.blockedAggregates(PageRequest.first(50), viewer).items()).extracting(BlockedAggregate::aggregateId)
                .as("A7's DEAD event is its head now").containsExactly("A3", "A4", "A6", "A7");
        // cancel the whole sequence of A3; retry A4's head with a publisher that now works
        ActionResult sequence = ops.cancelSequence("ORDER", "A3", "order withdrawn", operator);
        assertThat(sequence.changes()).extracting(AuditChange::eventNo, AuditChange::fromStatus)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("A3-POISON", "DEAD"),
                        org.assertj.core.groups.Tuple.tuple("A3-3", "PENDING"));
        assertThat(status("A3-1")).isEqualTo("PUBLISHED");
        assertThat(ops.retry(EventKind.OUTBOX, "A4-FLAKY", "broker fixed", operator).changed()).isEqualTo(1);
        drain(answering(r -> PublishResult.published()), Set.of("audit"));
        assertThat(List.of("A4-FLAKY", "A4-2")).allSatisfy(no -> assertThat(status(no)).isEqualTo("PUBLISHED"));
        assertThat(ops.blockedAggregates(PageRequest.first(50), viewer).items()).extracting(BlockedAggregate::aggregateId)
                .containsExactly("A6", "A7");
        assertThat(postbox.operations(OperationsConfig.defaults().ordered(false)).blockedAggregates(PageRequest.first(5),
                viewer).items()).as("an unordered relay holds nothing back").isEmpty();
    }

    // ---- detail and payload -----------------------------------------------------------------------------------

    @Test
    final void anEventsDetailShowsItsFieldsTimelineSequenceConsumersRelatedEventsAndCompensations() throws Exception {
        for (int i = 0; i < 30; i++) {
            write("ORD-9:" + i, "ORDER", "ORD-9", "orders");
        }
        set("ORD-9:24", "publish_status = 5, retry_count = 5, fail_reason = 'stock said 409: SKU-POISON'");
        inTx(c -> postbox.inbox().once(c, "billing", "ORD-9:24", () -> { }));
        inTx(c -> postbox.inbox().once(c, "stock", "ORD-9:24", () -> { }));
        inTx(c -> postbox.inbox().once(c, "stock", "ORD-9:25", () -> { }));
        inTx(c -> postbox.messages().create(c, MessageEvent.builder().eventNo("M-9").eventType("STOCK_RELEASE")
                .biz("ORDER", "ORD-9").payload("{}").build()));
        inTx(c -> postbox.compensations().once(c, "ORDER", "ORD-9", "TIMEOUT_CANCEL", conn -> "done"));
        OperationsFixture.attempt(ds, postbox, "OUTBOX", "ORD-9:24", 1, "LEASE_EXPIRED", "relay-a stopped", "relay-a",
                START.plusSeconds(1));
        clock.advance(Duration.ofSeconds(5));
        ops.retry(EventKind.OUTBOX, "ORD-9:24", "stock fixed", operator);
        clock.advance(Duration.ofSeconds(5));
        ops.payload(EventKind.OUTBOX, "ORD-9:24", "checking the amount", admin);

        EventDetail d = ops.event(EventKind.OUTBOX, "ORD-9:24", viewer).orElseThrow();
        assertThat(d.summary().status()).isEqualTo("PENDING");
        assertThat(d.fields()).containsEntry("event_no", "ORD-9:24").containsEntry("topic", "orders")
                .containsEntry("publish_status", "0").containsEntry("retry_count", "0")
                .containsKey("create_time").doesNotContainKeys("event_payload", "event_headers");
        assertThat(d.fields().get("create_time")).isEqualTo(d.summary().createTime().toString());
        assertThat(d.headerNames()).containsExactly("tenantId");
        assertThat(d.timeline()).extracting(TimelineEntry::kind)
                .containsExactly("CREATED", "LEASE_EXPIRED", "RETRIED", "REVEALED");
        assertThat(d.timeline().get(1).who()).isEqualTo("relay-a");
        assertThat(d.timeline().get(2)).extracting(TimelineEntry::who, TimelineEntry::detail)
                .containsExactly("otto", "stock fixed");
        assertThat(d.timeline().get(2).actionId()).isNotNull();
        assertThat(d.sequence()).extracting(EventSummary::eventNo).hasSize(26).startsWith("ORD-9:4").endsWith("ORD-9:29")
                .contains("ORD-9:24");
        assertThat(d.waitingBehind()).isEqualTo(5);
        assertThat(d.consumers()).extracting(EventDetail.Consumption::consumer).containsExactly("billing", "stock");
        assertThat(d.related()).extracting(EventSummary::eventNo, EventSummary::kind)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("M-9", EventKind.MESSAGE));
        assertThat(d.compensations()).extracting(c -> c.actionType()).containsExactly("TIMEOUT_CANCEL");

        EventDetail m = ops.event(EventKind.MESSAGE, "M-9", viewer).orElseThrow();
        assertThat(m.sequence()).isEmpty();
        assertThat(m.related()).hasSize(30).allMatch(e -> e.kind() == EventKind.OUTBOX);
        assertThat(m.fields()).containsEntry("biz_id", "ORD-9").doesNotContainKeys("event_payload", "trace_context");
        assertThat(m.headerNames()).as("written untraced: no trace headers").isEmpty();
        exec("UPDATE " + postbox.tables().message() + " SET trace_context = '{\"traceparent\":\"00-"
                + "0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\",\"baggage\":\"tenant=acme\"}' WHERE event_no = 'M-9'");
        assertThat(ops.event(EventKind.MESSAGE, "M-9", viewer).orElseThrow().headerNames())
                .as("the write's trace headers, by name only").containsExactly("baggage", "traceparent");
        exec("UPDATE " + postbox.tables().message() + " SET trace_context = 'garbage' WHERE event_no = 'M-9'");
        assertThat(ops.event(EventKind.MESSAGE, "M-9", viewer).orElseThrow().headerNames())
                .as("a context set by hand that is no JSON object shows none").isEmpty();
        assertThat(ops.event(EventKind.OUTBOX, "NOPE", viewer)).isEmpty();
        assertThat(ops.event(EventKind.MESSAGE, "ORD-9:24", viewer)).as("not a message event").isEmpty();
    }

    @Test
    final void aRealRelaysFailuresShowInTheTimelineFromItsAttemptRowsOrElseFromFailReason() throws Exception {
        write("P-POISON", "ORDER", "P-1", "orders");
        write("P-FLAKY", "ORDER", "P-2", "orders");
        drain(answering(POISON), Set.of());
        EventDetail recorded = ops.event(EventKind.OUTBOX, "P-FLAKY", viewer).orElseThrow();
        assertThat(recorded.timeline()).extracting(TimelineEntry::kind, TimelineEntry::who, TimelineEntry::attempt,
                        TimelineEntry::detail)
                .as("the relay's attempt row").containsExactly(org.assertj.core.groups.Tuple.tuple("CREATED", null, null, null),
                        org.assertj.core.groups.Tuple.tuple("ATTEMPT_FAILED", "relay-t", 1, "broker busy"));
        assertThat(ops.event(EventKind.OUTBOX, "P-POISON", viewer).orElseThrow().timeline())
                .extracting(TimelineEntry::kind, TimelineEntry::who).containsExactly(
                        org.assertj.core.groups.Tuple.tuple("CREATED", null), org.assertj.core.groups.Tuple.tuple("DEAD", "relay-t"));
        exec("DELETE FROM " + postbox.tables().eventAttempt());     // as rows from before schema version 8 look
        EventDetail dead = ops.event(EventKind.OUTBOX, "P-POISON", viewer).orElseThrow();
        assertThat(dead.timeline()).extracting(TimelineEntry::kind).containsExactly("CREATED", "DEAD");
        assertThat(dead.timeline().get(1).detail()).contains("SKU-POISON");
        EventDetail failed = ops.event(EventKind.OUTBOX, "P-FLAKY", viewer).orElseThrow();
        assertThat(failed.timeline()).extracting(TimelineEntry::kind, TimelineEntry::attempt, TimelineEntry::detail)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("CREATED", null, null),
                        org.assertj.core.groups.Tuple.tuple("ATTEMPT_FAILED", 1, "broker busy"));
        assertThat(failed.timeline().get(1).nextRetry()).isAfter(START);
        clock.advance(Duration.ofMinutes(10));
        drain(answering(r -> PublishResult.published()), Set.of());
        exec("DELETE FROM " + postbox.tables().eventAttempt());
        assertThat(ops.event(EventKind.OUTBOX, "P-FLAKY", viewer).orElseThrow().timeline()).extracting(TimelineEntry::kind)
                .as("published after its retry time").containsExactly("CREATED", "PUBLISHED");
    }

    @Test
    final void anArchivedEventIsFoundByItsEventNoAndShownAsArchived() throws Exception {
        write("OLD-1", "ORDER", "ORD-7", "orders");
        set("OLD-1", "publish_status = 2");
        String t = postbox.tables().outbox();
        String columns = dev.postbox.outbox.OutboxRows.COLUMNS + ", deleted";
        exec("INSERT INTO " + postbox.tables().outboxArchive() + " (" + columns + ", archived_time) SELECT " + columns
                + ", create_time FROM " + t + " WHERE event_no = 'OLD-1'");
        exec("DELETE FROM " + t + " WHERE event_no = 'OLD-1'");
        SearchPage found = ops.search(EventKind.OUTBOX, "event_no:OLD-1", PageRequest.first(10), viewer);
        assertThat(found.items()).singleElement().satisfies(e -> {
            assertThat(e.archived()).isTrue();
            assertThat(e.status()).isEqualTo("PUBLISHED");
        });
        assertThat(found.warnings()).anyMatch(w -> w.contains("archived"));
        EventDetail d = ops.event(EventKind.OUTBOX, "OLD-1", viewer).orElseThrow();
        assertThat(d.summary().archived()).isTrue();
        assertThat(d.fields()).containsKey("archived_time");
        assertThat(ops.payload(EventKind.OUTBOX, "OLD-1", "dispute", admin)).get()
                .extracting(RevealedPayload::payload).asString().contains("OLD-1");
    }

    @Test
    final void aPayloadIsRevealedThroughTheRedactorAuditedAndNeverPartOfAnError() throws Exception {
        write("E-1", "ORDER", "ORD-1", "orders");
        Operations redacting = postbox.operations(OperationsConfig.defaults().redactor(new PayloadRedactor() {
            @Override
            public String redactPayload(EventKind kind, String eventType, String payload) {
                return payload.replaceAll("\\d{4}-\\d{4}", "****");
            }

            @Override
            public Map<String, String> redactHeaders(EventKind kind, String eventType, Map<String, String> headers) {
                return Map.of("tenantId", "t?");
            }
        }));
        RevealedPayload p = redacting.payload(EventKind.OUTBOX, "E-1", "customer dispute #12", admin).orElseThrow();
        assertThat(p.payload()).isEqualTo("{\"card\":\"****\",\"no\":\"E-1\"}");
        assertThat(p.headers()).containsExactly(Map.entry("tenantId", "t?"));
        AuditEntry a = ops.audit(new AuditQuery(null, "REVEAL_PAYLOAD", "E-1", null, null), PageRequest.first(5), viewer)
                .items().get(0);
        assertThat(a).extracting(AuditEntry::id, AuditEntry::changed, AuditEntry::reason, AuditEntry::actor)
                .containsExactly(p.auditId(), 0, "customer dispute #12", "ada");
        assertThat(status("E-1")).isEqualTo("PENDING");

        Operations leaking = postbox.operations(OperationsConfig.defaults().redactor((kind, type, payload) -> {
            throw new IllegalStateException("cannot parse " + payload);
        }));
        assertThatThrownBy(() -> leaking.payload(EventKind.OUTBOX, "E-1", "look", admin))
                .isInstanceOf(PostboxException.class).hasMessageContaining("redactor failed")
                .hasMessageNotContaining("4111").hasNoCause();
        assertThat(ops.payload(EventKind.OUTBOX, "NOPE", "look", admin)).isEmpty();
        assertThat(ops.event(EventKind.OUTBOX, "E-1", viewer).orElseThrow().toString()).doesNotContain("4111");
        assertThat(ops.search(EventKind.OUTBOX, "ORD-1", PageRequest.first(5), viewer).toString()).doesNotContain("4111");
    }

    // ---- search -----------------------------------------------------------------------------------------------

    @Test
    final void theSearchOfBothTablesListsSummariesAndSaysWhatItDid() throws Exception {
        write("E-1", "ORDER", "ORD-1", "orders");
        write("E-2", "PAYMENT", "ORD-1", "payments");
        inTx(c -> postbox.messages().create(c, MessageEvent.builder().eventNo("M-1").eventType("X").biz("ORDER", "ORD-1")
                .payload("{}").build()));
        SearchPage outbox = ops.search(EventKind.OUTBOX, "ORD-1", PageRequest.first(10), viewer);
        assertThat(outbox.items()).extracting(EventSummary::eventNo, EventSummary::keyType, EventSummary::route)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("E-2", "PAYMENT", "payments"),
                        org.assertj.core.groups.Tuple.tuple("E-1", "ORDER", "orders"));
        assertThat(outbox.driver()).isEqualTo("AGGREGATE");
        assertThat(outbox.complete()).isTrue();
        SearchPage messages = ops.search(EventKind.MESSAGE, "biz:ORDER/ORD-1", PageRequest.first(10), viewer);
        assertThat(messages.items()).extracting(EventSummary::eventNo).containsExactly("M-1");
        assertThat(messages.driver()).isEqualTo("BIZ");
        assertThat(ops.search(EventKind.OUTBOX, "after:1h", PageRequest.first(10), viewer).warnings())
                .anyMatch(w -> w.contains("newest first"));
        assertThatThrownBy(() -> ops.search(EventKind.MESSAGE, "topic:orders", PageRequest.first(10), viewer))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("topic"));
    }

    // ---- bulk -------------------------------------------------------------------------------------------------

    private void deadEvents(int n, String topic) throws Exception {
        List<OutboxEvent> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(OutboxEvent.builder().eventNo(topic + "-" + i).aggregate("ORDER", topic + "-" + (i % 7))
                    .eventType("T").channel("MQ").topic(topic).payload("{}").build());
        }
        inTx(c -> postbox.outbox().writeAll(c, batch));
        exec("UPDATE " + postbox.tables().outbox() + " SET publish_status = 5, fail_reason = 'poison' WHERE topic = '"
                + topic + "'");
    }

    @Test
    final void aBulkActionChangesExactlyItsCapAfterADryRunThatCountedUpToIt() throws Exception {
        deadEvents(30, "bulk");
        write("OTHER", "ORDER", "X", "other");
        set("OTHER", "publish_status = 5");
        BulkRequest r = new BulkRequest(EventKind.OUTBOX, BulkRequest.Action.RETRY, "topic:bulk", 10, "broker back up");
        BulkPreview preview = ops.preview(r, operator);
        assertThat(preview.matching()).isEqualTo(10);
        assertThat(preview.moreThanCap()).isTrue();
        assertThat(preview.sample()).hasSize(10).allMatch(e -> e.status().equals("DEAD") && e.route().equals("bulk"));
        assertThat(preview.aggregates()).isEqualTo(7);
        assertThat(preview.expiresAt()).isEqualTo(clock.instant().plus(OperationsConfig.DEFAULT_PREVIEW_TTL));
        assertThat(preview.warnings()).anyMatch(w -> w.contains("more than 10"));
        assertThat(actions()).as("a dry run writes nothing").isZero();

        List<int[]> progress = new ArrayList<>();
        BulkResult result = ops.bulk(r, preview.token(), (changed, examined, planned) ->
                progress.add(new int[] {changed, examined, planned}), operator);
        assertThat(result.status()).isEqualTo("DONE");
        assertThat(result.changed()).isEqualTo(10);
        assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status = 0 AND topic = 'bulk'"))
                .isEqualTo(10);
        assertThat(status("OTHER")).isEqualTo("DEAD");
        assertThat(progress).isNotEmpty();
        assertThat(progress.get(progress.size() - 1)).containsExactly(10, progress.get(progress.size() - 1)[1], 10);
        AuditEntry a = ops.audit(new AuditQuery(null, "BULK_RETRY", null, null, null), PageRequest.first(5), viewer)
                .items().get(0);
        assertThat(a).extracting(AuditEntry::id, AuditEntry::filter, AuditEntry::dryRunCount, AuditEntry::cap,
                AuditEntry::changed, AuditEntry::status).containsExactly(result.auditId(), "topic:bulk", 10L, 10, 10, "DONE");
        Page<AuditChange> changes = ops.auditChanges(a.id(), PageRequest.first(6), viewer);
        assertThat(changes.items()).hasSize(6).allMatch(ch -> ch.fromStatus().equals("DEAD") && ch.toStatus().equals("PENDING"));
        assertThat(ops.auditChanges(a.id(), PageRequest.after(changes.nextCursor(), 6), viewer).items()).hasSize(4);
    }

    @Test
    final void aBulkActionSkipsWhatChangedSinceItsDryRunAndRunsOnlyWithItsOwnToken() throws Exception {
        deadEvents(5, "skip");
        BulkRequest r = new BulkRequest(EventKind.OUTBOX, BulkRequest.Action.CANCEL, "topic:skip status:dead", 100, "obsolete");
        BulkPreview preview = ops.preview(r, operator);
        assertThat(preview.matching()).isEqualTo(5);
        assertThat(preview.moreThanCap()).isFalse();
        set("skip-3", "publish_status = 2");               // published meanwhile (retried by someone else)

        for (Object[] bad : new Object[][] {
                {r, null, operator, "is required"},
                {r, preview.token() + "x", operator, "does not belong"},
                {new BulkRequest(EventKind.OUTBOX, BulkRequest.Action.CANCEL, "topic:skip", 100, "obsolete"), preview.token(),
                        operator, "does not belong"},
                {new BulkRequest(EventKind.OUTBOX, BulkRequest.Action.CANCEL, "topic:skip status:dead", 101, "obsolete"),
                        preview.token(), operator, "does not belong"},
                {new BulkRequest(EventKind.OUTBOX, BulkRequest.Action.CANCEL, "topic:skip status:dead", 100, "other"),
                        preview.token(), operator, "does not belong"},
                {r, preview.token(), Operator.of("mallory", Role.OPERATOR), "does not belong"},
                {r, "not-a-token", operator, "not a token"}}) {
            assertThatThrownBy(() -> ops.bulk((BulkRequest) bad[0], (String) bad[1], null, (Operator) bad[2]))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("previewToken"))
                    .hasMessageContaining((String) bad[3]);
        }
        clock.advance(OperationsConfig.DEFAULT_PREVIEW_TTL);
        assertThatThrownBy(() -> ops.bulk(r, preview.token(), null, operator))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("previewToken"))
                .hasMessageContaining("expired");
        assertThat(actions()).isZero();

        BulkPreview again = ops.preview(r, operator);
        assertThat(again.matching()).isEqualTo(4);
        set("skip-1", "publish_status = 2");
        BulkResult result = ops.bulk(r, again.token(), null, operator);
        assertThat(result.changed()).isEqualTo(3);
        assertThat(result.skipped()).as("counted by the dry run, published since").isEqualTo(1);
        assertThat(List.of("skip-0", "skip-2", "skip-4")).allSatisfy(no -> assertThat(status(no)).isEqualTo("CANCELLED"));
        assertThat(List.of("skip-1", "skip-3")).allSatisfy(no -> assertThat(status(no)).isEqualTo("PUBLISHED"));
        assertThatThrownBy(() -> ops.preview(new BulkRequest(EventKind.OUTBOX, BulkRequest.Action.RETRY,
                "status:published", 10, "x"), operator))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("query"))
                .hasMessageContaining("matches nothing RETRY applies to");
    }

    @Test
    final void aBulkActionOverManyChunksReportsProgressAfterEachAndStopsAtTheCap() throws Exception {
        deadEvents(1_200, "many");
        BulkRequest r = new BulkRequest(EventKind.OUTBOX, BulkRequest.Action.RETRY, "status:dead", 1_100, "replay");
        BulkPreview preview = ops.preview(r, admin);
        assertThat(preview.matching()).isEqualTo(1_100);
        assertThat(preview.sample()).hasSize(BulkPreview.SAMPLE_SIZE);
        List<Integer> changed = new ArrayList<>();
        BulkResult result = ops.bulk(r, preview.token(), (n, examined, planned) -> {
            assertThat(planned).isEqualTo(1_100);
            changed.add(n);
        }, admin);
        assertThat(result.changed()).isEqualTo(1_100);
        assertThat(changed).containsExactly(500, 1_000, 1_100);
        assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status = 5")).isEqualTo(100);
        assertThat(count(postbox.tables().adminLog())).isEqualTo(1_100);
    }

    @Test
    final void aBulkActionThatFailsHalfWayIsRecordedAsFailedWithWhatItChanged() throws Exception {
        deadEvents(600, "half");
        BulkRequest r = new BulkRequest(EventKind.OUTBOX, BulkRequest.Action.CANCEL, "topic:half", 1_000, "clean up");
        BulkPreview preview = ops.preview(r, operator);
        BulkResult result = ops.bulk(r, preview.token(), (changed, examined, planned) -> {
            throw new IllegalStateException("the console's connection went away after " + changed);
        }, operator);
        assertThat(result.status()).isEqualTo("FAILED");
        assertThat(result.changed()).as("the first chunk committed").isEqualTo(Bulk.CHUNK);
        assertThat(result.error()).contains("went away after 500");
        AuditEntry a = ops.audit(AuditQuery.all(), PageRequest.first(1), viewer).items().get(0);
        assertThat(a).extracting(AuditEntry::status, AuditEntry::changed, AuditEntry::error)
                .containsExactly("FAILED", 500, result.error());
        assertThat(a.finishTime()).isNotNull();
        assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status = 4")).isEqualTo(500);
    }

    @Test
    final void aBulkActionOnMessageEventsWorksTheSameWay() throws Exception {
        for (int i = 0; i < 4; i++) {
            int n = i;
            inTx(c -> postbox.messages().create(c, MessageEvent.builder().eventNo("MB-" + n).eventType("X")
                    .biz("ORDER", "O-" + n).payload("{}").build()));
        }
        exec("UPDATE " + postbox.tables().message() + " SET event_status = 5 WHERE event_no <> 'MB-0'");
        BulkRequest r = new BulkRequest(EventKind.MESSAGE, BulkRequest.Action.RETRY, "type:X", 10, "handler fixed");
        BulkPreview p = ops.preview(r, operator);
        assertThat(p.matching()).isEqualTo(3);
        assertThat(ops.bulk(r, p.token(), null, operator).changed()).isEqualTo(3);
        assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().message() + " WHERE event_status = 0")).isEqualTo(4);
    }

    // ---- compensation -----------------------------------------------------------------------------------------

    @Test
    final void aFailedCompensationWhoseAttemptsAreUsedUpRunsAgainAfterARetry() throws Exception {
        CompensationResult<Object> failed = inTx(c -> postbox.compensations().once(c, "ORDER", "ORD-5", "TIMEOUT_CANCEL", 1,
                conn -> {
                    throw new IllegalStateException("payment service down");
                }));
        assertThat(failed.outcome()).isEqualTo(CompensationResult.Outcome.FAILED);
        assertThat(inTx(c -> postbox.compensations().once(c, "ORDER", "ORD-5", "TIMEOUT_CANCEL", 1, conn -> "x")).outcome())
                .as("its attempts are used up").isEqualTo(CompensationResult.Outcome.GAVE_UP);
        ActionResult r = ops.retryCompensation("ORDER", "ORD-5", "TIMEOUT_CANCEL", "payment service back", operator);
        assertThat(r.changed()).isEqualTo(1);
        assertThat(r.changes()).singleElement().satisfies(ch -> {
            assertThat(ch.table()).isEqualTo(postbox.tables().compensationLog());
            assertThat(ch.eventNo()).isEqualTo("ORD-5");
            assertThat(ch.fromStatus()).isEqualTo("FAILED");
        });
        assertThat(inTx(c -> postbox.compensations().once(c, "ORDER", "ORD-5", "TIMEOUT_CANCEL", 1, conn -> "x")).outcome())
                .isEqualTo(CompensationResult.Outcome.DONE);
        assertThat(ops.retryCompensation("ORDER", "ORD-5", "TIMEOUT_CANCEL", "again", operator).message()).contains("is DONE");
        assertThat(ops.retryCompensation("ORDER", "NOPE", "TIMEOUT_CANCEL", "x", operator).changed()).isZero();
        assertThat(ops.audit(new AuditQuery(null, "RETRY_COMPENSATION", null, null, null), PageRequest.first(5), viewer)
                .items()).extracting(AuditEntry::filter)
                .containsExactly("ORDER/NOPE/TIMEOUT_CANCEL", "ORDER/ORD-5/TIMEOUT_CANCEL", "ORDER/ORD-5/TIMEOUT_CANCEL");
    }

    // ---- audit ------------------------------------------------------------------------------------------------

    @Test
    final void theAuditLogIsNewestFirstKeysetPagedAndFilteredByActorActionEventAndTime() throws Exception {
        for (int i = 0; i < 7; i++) {
            write("AU-" + i, "ORDER", "ORD-" + i, "orders");
            set("AU-" + i, "publish_status = 5");
        }
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            clock.advance(Duration.ofMinutes(1));
            Operator who = i % 2 == 0 ? operator : admin;
            ids.add(i < 5 ? ops.retry(EventKind.OUTBOX, "AU-" + i, "r" + i, who).auditId()
                    : ops.cancel(EventKind.OUTBOX, "AU-" + i, "c" + i, who).auditId());
        }
        ids.add(ops.cancel(EventKind.OUTBOX, "AU-0", "after the retry", admin).auditId());
        List<Long> all = new ArrayList<>();
        Page<AuditEntry> page = ops.audit(AuditQuery.all(), PageRequest.first(3), viewer);
        while (true) {
            page.items().forEach(e -> all.add(e.id()));
            if (!page.hasNext()) {
                break;
            }
            page = ops.audit(AuditQuery.all(), page.next(3), viewer);
        }
        List<Long> newestFirst = new ArrayList<>(ids);
        java.util.Collections.reverse(newestFirst);
        assertThat(all).containsExactlyElementsOf(newestFirst);
        assertThat(ops.audit(new AuditQuery("ada", null, null, null, null), PageRequest.first(10), viewer).items())
                .extracting(AuditEntry::id).containsExactly(ids.get(7), ids.get(5), ids.get(3), ids.get(1));
        assertThat(ops.audit(new AuditQuery(null, "CANCEL", null, null, null), PageRequest.first(10), viewer).items())
                .extracting(AuditEntry::id).containsExactly(ids.get(7), ids.get(6), ids.get(5));
        assertThat(ops.audit(new AuditQuery(null, null, "AU-0", null, null), PageRequest.first(10), viewer).items())
                .extracting(AuditEntry::id).containsExactly(ids.get(7), ids.get(0));
        Instant from = START.plus(Duration.ofMinutes(3));
        Instant before = START.plus(Duration.ofMinutes(6));
        List<Long> ranged = new ArrayList<>();
        Page<AuditEntry> p = ops.audit(new AuditQuery(null, null, null, from, before), PageRequest.first(2), viewer);
        while (true) {
            p.items().forEach(e -> ranged.add(e.id()));
            if (!p.hasNext()) {
                break;
            }
            p = ops.audit(new AuditQuery(null, null, null, from, before), p.next(2), viewer);
        }
        assertThat(ranged).containsExactly(ids.get(4), ids.get(3), ids.get(2));
        assertThat(ops.audit(new AuditQuery("otto", "RETRY", null, from, null), PageRequest.first(10), viewer).items())
                .extracting(AuditEntry::id).containsExactly(ids.get(4), ids.get(2));
    }

    // ---- bad input ------------------------------------------------------------------------------------------------

    @Test
    final void badInputIsRefusedNamingTheFieldAndNothingIsWritten() throws Exception {
        write("E-1", "ORDER", "ORD-1", "orders");
        String long65 = "x".repeat(65);
        record Bad(String field, Runnable call) {
        }
        for (Bad bad : List.of(
                new Bad("operator", () -> ops.overview(null)),
                new Bad("kind", () -> ops.search(null, "ORD-1", PageRequest.first(5), viewer)),
                new Bad("query", () -> ops.search(EventKind.OUTBOX, " ", PageRequest.first(5), viewer)),
                new Bad("status", () -> ops.search(EventKind.OUTBOX, "status:lost", PageRequest.first(5), viewer)),
                new Bad("page", () -> ops.search(EventKind.OUTBOX, "ORD-1", null, viewer)),
                new Bad("eventNo", () -> ops.event(EventKind.OUTBOX, null, viewer)),
                new Bad("eventNo", () -> ops.event(EventKind.OUTBOX, long65, viewer)),
                new Bad("eventNo", () -> ops.retry(EventKind.OUTBOX, "", "r", operator)),
                new Bad("reason", () -> ops.retry(EventKind.OUTBOX, "E-1", null, operator)),
                new Bad("reason", () -> ops.cancel(EventKind.OUTBOX, "E-1", "r".repeat(501), operator)),
                new Bad("reason", () -> ops.payload(EventKind.OUTBOX, "E-1", " ", admin)),
                new Bad("kind", () -> ops.cancel(null, "E-1", "r", operator)),
                new Bad("aggregateType", () -> ops.cancelSequence(null, "ORD-1", "r", operator)),
                new Bad("aggregateId", () -> ops.cancelSequence("ORDER", long65, "r", operator)),
                new Bad("bizType", () -> ops.retryCompensation(null, "k", "a", "r", operator)),
                new Bad("bizKey", () -> ops.retryCompensation("ORDER", long65, "a", "r", operator)),
                new Bad("actionType", () -> ops.retryCompensation("ORDER", "k", "", "r", operator)),
                new Bad("request", () -> ops.preview(null, operator)),
                new Bad("kind", () -> new BulkRequest(null, BulkRequest.Action.RETRY, "status:dead", 1, "r")),
                new Bad("action", () -> new BulkRequest(EventKind.OUTBOX, null, "status:dead", 1, "r")),
                new Bad("query", () -> new BulkRequest(EventKind.OUTBOX, BulkRequest.Action.RETRY, null, 1, "r")),
                new Bad("cap", () -> new BulkRequest(EventKind.OUTBOX, BulkRequest.Action.RETRY, "status:dead", 0, "r")),
                new Bad("cap", () -> new BulkRequest(EventKind.OUTBOX, BulkRequest.Action.RETRY, "status:dead",
                        BulkRequest.MAX_CAP + 1, "r")),
                new Bad("reason", () -> new BulkRequest(EventKind.OUTBOX, BulkRequest.Action.RETRY, "status:dead", 1, "")),
                new Bad("query", () -> ops.preview(new BulkRequest(EventKind.OUTBOX, BulkRequest.Action.RETRY, "colour:red",
                        5, "r"), operator)),
                new Bad("actor", () -> ops.audit(new AuditQuery("a".repeat(129), null, null, null, null),
                        PageRequest.first(5), viewer)),
                new Bad("eventNo", () -> ops.audit(new AuditQuery(null, null, long65, null, null), PageRequest.first(5), viewer)),
                new Bad("from", () -> ops.audit(new AuditQuery(null, null, null, START, START), PageRequest.first(5), viewer)),
                new Bad("after", () -> ops.audit(AuditQuery.all(), PageRequest.after("x", 5), viewer)),
                new Bad("after", () -> ops.auditChanges(1, PageRequest.after("x", 5), viewer)),
                new Bad("after", () -> ops.blockedAggregates(PageRequest.after("x", 5), viewer)),
                new Bad("overviewTtl", () -> OperationsConfig.defaults().overviewTtl(Duration.ZERO)),
                new Bad("aliveWithin", () -> OperationsConfig.defaults().aliveWithin(null)),
                new Bad("previewTtl", () -> OperationsConfig.defaults().previewTtl(Duration.ofDays(2))),
                new Bad("unorderedTopics", () -> OperationsConfig.defaults().unorderedTopics(Set.of(" x"))),
                new Bad("operator.name", () -> Operator.of("", Role.VIEWER)))) {
            assertThatThrownBy(bad.call()::run).as(bad.field())
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo(bad.field()))
                    .hasMessageStartingWith(bad.field() + ":");
        }
        assertThat(actions()).isZero();
        assertThat(count(postbox.tables().adminLog())).isZero();
        assertThat(status("E-1")).isEqualTo("PENDING");
    }

    /** README's example ("Operations"), as it is written there. */
    @Test
    final void theReadmeExampleRuns() throws Exception {
        write("ORDER_CREATED:ORD-1042", "ORDER", "ORD-1042", "orders");
        set("ORDER_CREATED:ORD-1042", "publish_status = 5, fail_reason = 'stock: SKU-POISON'");
        Operations ops = postbox.operations();
        Operator me = Operator.of("oncall@example.com", Role.OPERATOR);

        SearchPage found = ops.search(EventKind.OUTBOX, "ORD-1042 status:dead", PageRequest.first(20), me);
        for (EventSummary e : found.items()) {
            EventDetail d = ops.event(EventKind.OUTBOX, e.eventNo(), me).orElseThrow();
            System.out.println(e.eventNo() + " " + e.status() + ": " + e.failReason() + ", " + d.waitingBehind() + " waiting");
            ops.retry(EventKind.OUTBOX, e.eventNo(), "stock service fixed (INC-311)", me);
        }
        BulkRequest all = new BulkRequest(EventKind.OUTBOX, BulkRequest.Action.RETRY, "status:dead topic:orders", 500,
                "broker back after INC-311");
        BulkPreview dryRun = ops.preview(all, me);                        // counts, samples, warns; writes nothing
        BulkResult done = ops.bulk(all, dryRun.token(), BulkProgress.none(), me);
        System.out.println(done.changed() + " retried, audit entry " + done.auditId());

        assertThat(status("ORDER_CREATED:ORD-1042")).isEqualTo("PENDING");
        assertThat(done.changed()).isZero();
        assertThat(ops.audit(AuditQuery.all(), PageRequest.first(5), me).items()).hasSize(2);
    }
}
