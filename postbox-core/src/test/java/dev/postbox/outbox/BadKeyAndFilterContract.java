package dev.postbox.outbox;

import dev.postbox.admin.AdminFilter;
import dev.postbox.common.ValidationException;
import dev.postbox.compensation.CompensationRecord;
import dev.postbox.compensation.CompensationResult;
import dev.postbox.inbox.InboxResult;
import dev.postbox.outbox.TextCases.TextCase;
import dev.postbox.query.PageRequest;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * The bad-input suite beyond event writes: inbox and compensation keys, admin who/why and filters, query
 * filters, cursors, page sizes and instants. A key is stored and found again exactly, or refused naming
 * the field and its limit with nothing written and the caller's transaction still usable.
 */
public abstract class BadKeyAndFilterContract extends DatabaseContract {

    private static final String CUT_EMOJI = "X\uD83D";

    private boolean countsUtf16() {
        return db.kind().equals("h2");
    }

    final Stream<TextCase> inboxCases() {
        return Stream.concat(TextCases.of("inbox", "consumer", 128, true, countsUtf16()),
                TextCases.of("inbox", "eventNo", 64, true, countsUtf16()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("inboxCases")
    final void inboxKeysAreStoredExactlyOrRefused(TextCase tc) throws Exception {
        String consumer = tc.field().equals("consumer") ? tc.value() : "inventory";
        String eventNo = tc.field().equals("eventNo") ? tc.value() : "E-1";
        if (tc.refusal() != null) {
            refused(c -> postbox.inbox().once(c, consumer, eventNo, () -> insertOrder(c, "O-work")), tc,
                    postbox.tables().consumeLog());
            return;
        }
        InboxResult<Void> first = inTx(c -> postbox.inbox().once(c, consumer, eventNo, () -> insertOrder(c, "O-work")));
        assertThat(first.ran()).isTrue();
        assertThat(queryString("SELECT consumer FROM " + postbox.tables().consumeLog())).isEqualTo(consumer);
        assertThat(queryString("SELECT event_no FROM " + postbox.tables().consumeLog())).isEqualTo(eventNo);
        InboxResult<Void> again = inTx(c -> postbox.inbox().once(c, consumer, eventNo, () -> insertOrder(c, "O-twice")));
        assertThat(again.duplicate()).as("the same key is found again").isTrue();
        assertThat(count("app_order")).isEqualTo(1);
    }

    final Stream<TextCase> compensationCases() {
        return Stream.of("bizType", "bizKey", "actionType")
                .flatMap(f -> TextCases.of("compensation", f, 64, true, countsUtf16()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("compensationCases")
    final void compensationKeysAreStoredExactlyOrRefused(TextCase tc) throws Exception {
        String bizType = tc.field().equals("bizType") ? tc.value() : "ORDER";
        String bizKey = tc.field().equals("bizKey") ? tc.value() : "O-1";
        String actionType = tc.field().equals("actionType") ? tc.value() : "TIMEOUT_CANCEL";
        if (tc.refusal() != null) {
            refused(c -> postbox.compensations().once(c, bizType, bizKey, actionType, x -> 1), tc,
                    postbox.tables().compensationLog());
            return;
        }
        CompensationResult<Integer> done = inTx(c -> postbox.compensations().once(c, bizType, bizKey, actionType, x -> 1));
        assertThat(done.outcome()).isEqualTo(CompensationResult.Outcome.DONE);
        CompensationRecord stored = postbox.compensations().find(bizType, bizKey, actionType).orElseThrow();
        assertThat(stored.bizType()).isEqualTo(bizType);
        assertThat(stored.bizKey()).isEqualTo(bizKey);
        assertThat(stored.actionType()).isEqualTo(actionType);
        CompensationResult<Integer> again = inTx(c -> postbox.compensations().once(c, bizType, bizKey, actionType, x -> 2));
        assertThat(again.outcome()).isEqualTo(CompensationResult.Outcome.ALREADY_DONE);
    }

    final Stream<TextCase> adminCases() {
        return Stream.concat(TextCases.of("admin", "actor", 128, false, countsUtf16()),
                TextCases.of("admin", "reason", 500, false, countsUtf16()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("adminCases")
    final void adminActorAndReasonAreStoredExactlyOrRefused(TextCase tc) throws Exception {
        writeDead("E-dead");
        String actor = tc.field().equals("actor") ? tc.value() : "ops@example.com";
        String reason = tc.field().equals("reason") ? tc.value() : "downstream fixed";
        if (tc.refusal() != null) {
            assertThatThrownBy(() -> postbox.admin().retry("E-dead", actor, reason))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo(tc.field()))
                    .hasMessageContaining(tc.refusal());
            assertThat(count(postbox.tables().adminLog())).isZero();
            assertThat(postbox.queries().outbox().byEventNo("E-dead").orElseThrow().status()).isEqualTo(OutboxStatus.DEAD);
            return;
        }
        assertThat(postbox.admin().retry("E-dead", actor, reason)).isTrue();
        assertThat(queryString("SELECT actor FROM " + postbox.tables().adminLog())).isEqualTo(actor);
        assertThat(queryString("SELECT reason FROM " + postbox.tables().adminLog())).isEqualTo(reason);
    }

    static Stream<Arguments> badFilters() {
        return Stream.of(
                arguments("filter.topic", "NUL", AdminFilter.status(OutboxStatus.DEAD, 10).topic("t\0")),
                arguments("filter.topic", "unpaired surrogate", AdminFilter.status(OutboxStatus.DEAD, 10).topic(CUT_EMOJI)),
                arguments("filter.topic", "at most 128", AdminFilter.status(OutboxStatus.DEAD, 10).topic("t".repeat(129))),
                arguments("filter.eventType", "NUL", AdminFilter.status(OutboxStatus.DEAD, 10).eventType("\0")),
                arguments("filter.eventType", "unpaired surrogate", AdminFilter.status(OutboxStatus.DEAD, 10).eventType("\uDE00")),
                arguments("filter.aggregateType", "NUL", AdminFilter.status(OutboxStatus.DEAD, 10).aggregateType("A\0")),
                arguments("filter.aggregateType", "unpaired surrogate", AdminFilter.status(OutboxStatus.DEAD, 10).aggregateType(CUT_EMOJI)),
                arguments("filter.aggregateType", "at most 64", AdminFilter.status(OutboxStatus.DEAD, 10).aggregateType("A".repeat(65))));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("badFilters")
    final void aBadAdminFilterIsRefusedAndChangesNothing(String field, String limit, AdminFilter filter) throws Exception {
        writeDead("E-dead");
        assertThatThrownBy(() -> postbox.admin().cancelWhere(filter, "ops", "cleanup"))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo(field))
                .hasMessageContaining(limit);
        assertThat(count(postbox.tables().adminLog())).isZero();
        assertThat(postbox.queries().outbox().byEventNo("E-dead").orElseThrow().status()).isEqualTo(OutboxStatus.DEAD);
    }

    @Test
    final void anAdminFilterUpToInstantMaxMeansEveryEvent() throws Exception {
        writeDead("E-dead");
        AdminFilter filter = AdminFilter.status(OutboxStatus.DEAD, 10).createdBefore(Instant.MAX).topic("order.event");
        assertThat(postbox.admin().cancelWhere(filter, "ops", "cleanup")).isEqualTo(1);
        assertThat(postbox.queries().outbox().byEventNo("E-dead").orElseThrow().status()).isEqualTo(OutboxStatus.CANCELLED);
    }

    @Test
    final void anAdminFilterMatchesAnEmojiTopicExactly() throws Exception {
        String topic = TextCases.EMOJI.repeat(countsUtf16() ? 64 : 128);
        writeDead("E-dead", topic);
        writeDead("E-other", TextCases.EMOJI.repeat(3));
        assertThat(postbox.admin().cancelWhere(AdminFilter.status(OutboxStatus.DEAD, 10).topic(topic), "ops", "x")).isEqualTo(1);
        assertThat(postbox.queries().outbox().byEventNo("E-dead").orElseThrow().status()).isEqualTo(OutboxStatus.CANCELLED);
        assertThat(postbox.queries().outbox().byEventNo("E-other").orElseThrow().status()).isEqualTo(OutboxStatus.DEAD);
    }

    private interface Query {
        Object run(String value);
    }

    final Stream<Arguments> badQueryInputs() {
        var outbox = postbox.queries().outbox();
        var messages = postbox.queries().messages();
        PageRequest page = PageRequest.first(10);
        Stream.Builder<Arguments> b = Stream.builder();
        java.util.Map<String, Query> queries = new java.util.LinkedHashMap<>();
        queries.put("outbox.byEventNo:eventNo", outbox::byEventNo);
        queries.put("outbox.byAggregate:aggregateType", v -> outbox.byAggregate(v, "O-1", page));
        queries.put("outbox.byAggregate:aggregateId", v -> outbox.byAggregate("ORDER", v, page));
        queries.put("outbox.byTraceId:traceId", v -> outbox.byTraceId(v, page));
        queries.put("outbox.failedByTopic:topic", v -> outbox.failedByTopic(v, page));
        queries.put("outbox.countByStatus:eventType", v -> outbox.countByStatus(v, Instant.MIN, Instant.MAX));
        queries.put("messages.byEventNo:eventNo", messages::byEventNo);
        queries.put("messages.byBiz:bizType", v -> messages.byBiz(v, "O-1", page));
        queries.put("messages.byBiz:bizId", v -> messages.byBiz("ORDER", v, page));
        queries.put("messages.byTraceId:traceId", v -> messages.byTraceId(v, page));
        queries.put("messages.countByStatus:eventType", v -> messages.countByStatus(v, Instant.MIN, Instant.MAX));
        queries.forEach((name, q) -> {
            String field = name.substring(name.indexOf(':') + 1);
            b.add(arguments(name, "NUL", field, "NUL", q));
            b.add(arguments(name, "lone high surrogate", field, "unpaired surrogate", q));
            b.add(arguments(name, "lone low surrogate", field, "unpaired surrogate", q));
        });
        return b.build();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("badQueryInputs")
    final void aBadQueryFilterIsRefusedNamingTheField(String query, String what, String field, String limit, Query q) {
        String value = switch (what) {
            case "NUL" -> "E\0";
            case "lone high surrogate" -> CUT_EMOJI;
            default -> "\uDE00X";
        };
        assertThatThrownBy(() -> q.run(value))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo(field))
                .hasMessageContaining(limit);
    }

    static Stream<Arguments> badPages() {
        return Stream.of(-1, 0, 1001, Integer.MAX_VALUE, Integer.MIN_VALUE).map(n -> arguments(n));
    }

    @ParameterizedTest(name = "page size {0}")
    @MethodSource("badPages")
    final void aPageSizeOutOfRangeIsRefused(int size) {
        assertThatThrownBy(() -> PageRequest.first(size))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("limit"))
                .hasMessageContaining("between 1 and 1000 (was " + size + ")");
    }

    static Stream<Arguments> badCursors() {
        return Stream.of("x", "9".repeat(10_000), "1:2:3", ":", "-", "1.5", "\0", "99999999999999999999:1")
                .map(c -> arguments(c.length() > 30 ? c.substring(0, 30) + "..." : c, c));
    }

    @ParameterizedTest(name = "cursor {0}")
    @MethodSource("badCursors")
    final void aMalformedOrHugeCursorIsRefused(String shown, String cursor) {
        PageRequest page = PageRequest.after(cursor, 10);
        for (Executable query : new Executable[] {
                () -> postbox.queries().outbox().pending(page),
                () -> postbox.queries().outbox().failedByTopic("order.event", page),
                () -> postbox.queries().messages().dueRetries(page)}) {
            assertThatThrownBy(query::execute)
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("after"))
                    .hasMessageContaining("is not a cursor returned by this query");
        }
    }

    @Test
    final void cursorsAtTheEndsOfTimeAreClampedNotRefused() throws Exception {
        writeDead("E-dead");
        // mostRetried pages by update_time descending: after the end of time comes everything, after its start nothing
        assertThat(postbox.queries().outbox().mostRetried(0, PageRequest.after(Long.MAX_VALUE + ":" + Long.MAX_VALUE, 10))
                .items()).extracting(OutboxRecord::eventNo).containsExactly("E-dead");
        assertThat(postbox.queries().outbox().mostRetried(0, PageRequest.after(Long.MIN_VALUE + ":" + Long.MIN_VALUE, 10))
                .items()).isEmpty();
        assertThat(postbox.queries().outbox().pending(PageRequest.after(Long.toString(Long.MAX_VALUE), 10)).items()).isEmpty();
    }

    @Test
    final void instantsAtTheEndsOfTimeAreClampedToWhatTheColumnsHold() throws Exception {
        writeDead("E-dead");
        assertThat(postbox.queries().outbox().countByStatus("ORDER_CREATED", Instant.MIN, Instant.MAX))
                .containsEntry(OutboxStatus.DEAD, 1L);
        assertThat(postbox.queries().messages().stuckProcessing(Duration.ofSeconds(Long.MAX_VALUE), PageRequest.first(10))
                .items()).isEmpty();
        assertThat(postbox.queries().messages().stuckProcessing(Duration.ZERO, PageRequest.first(10)).items()).isEmpty();
    }

    @Test
    final void anInboxCleanupOlderThanForeverDeletesNothing() throws Exception {
        inTx(c -> postbox.inbox().once(c, "inventory", "E-1", () -> { }));
        assertThat(postbox.inbox().cleanup(Duration.ofSeconds(Long.MAX_VALUE), 100)).isZero();
        assertThat(count(postbox.tables().consumeLog())).isEqualTo(1);
        clock.advance(Duration.ofDays(1));
        assertThat(postbox.inbox().cleanup(Duration.ofHours(1), 100)).isEqualTo(1);
    }

    @Test
    final void compensationsOnceAnswersAlreadyDoneAfterTheCallerReadTheLog() throws Exception {
        try (Connection caller = ds.getConnection()) {
            caller.setAutoCommit(false);
            // the caller's transaction reads first: on MySQL/MariaDB (REPEATABLE READ) that fixes its snapshot
            assertThat(postbox.compensations().find("ORDER", "O-1", "TIMEOUT_CANCEL")).isEmpty();
            try (var st = caller.createStatement(); var rs = st.executeQuery("SELECT COUNT(*) FROM "
                    + postbox.tables().compensationLog())) {
                rs.next();
                assertThat(rs.getLong(1)).isZero();
            }
            // meanwhile another transaction runs and commits the compensation
            CompensationResult<Integer> other = inTx(c -> postbox.compensations().once(c, "ORDER", "O-1", "TIMEOUT_CANCEL", x -> 1));
            assertThat(other.outcome()).isEqualTo(CompensationResult.Outcome.DONE);
            CompensationResult<Integer> late = postbox.compensations().once(caller, "ORDER", "O-1", "TIMEOUT_CANCEL", x -> 2);
            assertThat(late.outcome()).isEqualTo(CompensationResult.Outcome.ALREADY_DONE);
            insertOrder(caller, "O-caller");
            caller.commit();
        }
        assertThat(count("app_order")).isEqualTo(1);
        assertThat(postbox.compensations().find("ORDER", "O-1", "TIMEOUT_CANCEL").orElseThrow().attempts()).isEqualTo(1);
    }

    // ---- helpers ----

    private void writeDead(String eventNo) throws Exception {
        writeDead(eventNo, "order.event");
    }

    private void writeDead(String eventNo, String topic) throws Exception {
        inTx(c -> postbox.outbox().write(c, OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", eventNo)
                .eventType("ORDER_CREATED").channel("MQ").topic(topic).payload("{}").build()));
        exec("UPDATE " + postbox.tables().outbox() + " SET publish_status = " + OutboxStatus.DEAD.code()
                + ", retry_count = 1 WHERE event_no = '" + eventNo + "'");
    }

    /** A call in the caller's transaction that must be refused: nothing in {@code table}, the business rows commit. */
    private void refused(TxWork<?> call, TextCase tc, String table) throws Exception {
        refusedWithNothingWritten(call, tc.field(), tc.refusal(), table);
        assertThat(queryLong("SELECT COUNT(*) FROM app_order WHERE order_no = 'O-work'")).isZero();
    }
}
