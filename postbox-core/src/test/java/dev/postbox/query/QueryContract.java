package dev.postbox.query;

import dev.postbox.common.ValidationException;
import dev.postbox.message.MessageEvent;
import dev.postbox.message.MessageRecord;
import dev.postbox.message.MessageStatus;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Seed 000's queries on a real database: right rows, right order, bounded, keyset-paged. */
public abstract class QueryContract extends DatabaseContract {

    private OutboxQueries outbox() {
        return postbox.queries().outbox();
    }

    private MessageQueries messages() {
        return postbox.queries().messages();
    }

    private List<Long> writeEvents(int n, Function<Integer, OutboxEvent.Builder> customize) throws Exception {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int k = i;
            ids.add(inTx(c -> postbox.outbox().write(c, customize.apply(k).build())).id());
            clock.advance(Duration.ofMillis(10));
        }
        return ids;
    }

    private static OutboxEvent.Builder event(int i) {
        return OutboxEvent.builder().eventNo("E-" + i).aggregate("ORDER", "O-" + (i % 3)).eventType("ORDER_CREATED")
                .channel("MQ").topic(i % 2 == 0 ? "order.event" : "pay.event").payload("{\"i\":" + i + "}")
                .traceId("trace-" + (i % 4));
    }

    private void setOutbox(String eventNo, String assignments, Instant time) throws Exception {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "UPDATE " + postbox.tables().outbox() + " SET " + assignments + " WHERE event_no = ?")) {
            int i = 1;
            if (assignments.contains("?")) {
                postbox.dialect().bindTime(ps, i++, time);
            }
            ps.setString(i, eventNo);
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }

    private static <T> List<T> readAll(Function<PageRequest, Page<T>> query, int pageSize) {
        List<T> all = new ArrayList<>();
        PageRequest request = PageRequest.first(pageSize);
        for (int pages = 0; pages < 100; pages++) {
            Page<T> page = query.apply(request);
            assertThat(page.items().size()).isLessThanOrEqualTo(pageSize);
            all.addAll(page.items());
            if (!page.hasNext()) {
                return all;
            }
            request = page.next(pageSize);
        }
        throw new AssertionError("paging did not end");
    }

    @Test
    final void pendingPagesThroughEveryPendingEventOnceInIdOrder() throws Exception {
        List<Long> ids = writeEvents(25, QueryContract::event);
        setOutbox("E-3", "publish_status = 2", null);
        Page<OutboxRecord> first = outbox().pending(PageRequest.first(10));
        assertThat(first.items()).hasSize(10);
        assertThat(first.hasNext()).isTrue();

        List<OutboxRecord> all = readAll(outbox()::pending, 10);
        List<Long> expected = new ArrayList<>(ids);
        expected.remove(ids.get(3));
        assertThat(all).extracting(OutboxRecord::id).containsExactlyElementsOf(expected);
        assertThat(all).allMatch(r -> r.status() == OutboxStatus.PENDING);
    }

    @Test
    final void exactlyFullLastPageHasNoNextCursor() throws Exception {
        writeEvents(10, QueryContract::event);
        Page<OutboxRecord> page = outbox().pending(PageRequest.first(10));
        assertThat(page.items()).hasSize(10);
        assertThat(page.hasNext()).isFalse();
        assertThat(page.nextCursor()).isNull();
    }

    @Test
    final void dueRetriesAreFailedEventsWhoseTimeHasComeEarliestFirst() throws Exception {
        writeEvents(6, QueryContract::event);
        setOutbox("E-0", "publish_status = 3, retry_count = 1, next_retry_time = ?", clock.instant().minusSeconds(5));
        setOutbox("E-1", "publish_status = 3, retry_count = 2, next_retry_time = ?", clock.instant().minusSeconds(50));
        setOutbox("E-2", "publish_status = 3, retry_count = 1, next_retry_time = ?", clock.instant().plusSeconds(60));
        setOutbox("E-3", "publish_status = 3, retry_count = 1, next_retry_time = ?", clock.instant());
        List<OutboxRecord> due = readAll(outbox()::dueRetries, 2);
        assertThat(due).extracting(OutboxRecord::eventNo).containsExactly("E-1", "E-0", "E-3");
        clock.advance(Duration.ofSeconds(60));
        assertThat(readAll(outbox()::dueRetries, 2)).extracting(OutboxRecord::eventNo)
                .containsExactly("E-1", "E-0", "E-3", "E-2");
    }

    @Test
    final void expiredLeasesArePublishingEventsPastLockUntil() throws Exception {
        writeEvents(4, QueryContract::event);
        setOutbox("E-0", "publish_status = 1, locked_by = 'r1', lock_until = ?", clock.instant().minusSeconds(1));
        setOutbox("E-1", "publish_status = 1, locked_by = 'r2', lock_until = ?", clock.instant().plusSeconds(30));
        setOutbox("E-2", "publish_status = 2, lock_until = ?", clock.instant().minusSeconds(30));
        List<OutboxRecord> expired = readAll(outbox()::expiredLeases, 10);
        assertThat(expired).extracting(OutboxRecord::eventNo).containsExactly("E-0");
        assertThat(expired.get(0).lockedBy()).isEqualTo("r1");
    }

    @Test
    final void byAggregateReturnsOneAggregatesEventsInPublicationOrder() throws Exception {
        List<Long> ids = writeEvents(12, QueryContract::event);
        List<OutboxRecord> o1 = readAll(p -> outbox().byAggregate("ORDER", "O-1", p), 2);
        assertThat(o1).extracting(OutboxRecord::id).containsExactly(ids.get(1), ids.get(4), ids.get(7), ids.get(10));
        assertThat(outbox().byAggregate("ORDER", "O-404", PageRequest.first(5)).items()).isEmpty();
        assertThat(outbox().byAggregate("PAYMENT", "O-1", PageRequest.first(5)).items()).isEmpty();
    }

    @Test
    final void byEventNoAndByTraceIdFindTheirEvents() throws Exception {
        List<Long> ids = writeEvents(8, QueryContract::event);
        assertThat(outbox().byEventNo("E-5")).get().extracting(OutboxRecord::id).isEqualTo(ids.get(5));
        assertThat(outbox().byEventNo("e-5")).as("event_no is case-sensitive").isEmpty();
        assertThat(outbox().byEventNo("missing")).isEmpty();
        assertThat(readAll(p -> outbox().byTraceId("trace-1", p), 1)).extracting(OutboxRecord::id)
                .containsExactly(ids.get(1), ids.get(5));
    }

    @Test
    final void countByStatusCountsOneEventTypeInAHalfOpenTimeRange() throws Exception {
        Instant from = clock.instant();
        writeEvents(10, QueryContract::event); // at from, from+10ms, ... from+90ms
        writeEvents(1, i -> event(100).eventType("PAY_SUCCESS"));
        setOutbox("E-1", "publish_status = 2", null);
        setOutbox("E-2", "publish_status = 2", null);
        setOutbox("E-3", "publish_status = 5", null);
        Map<OutboxStatus, Long> all = outbox().countByStatus("ORDER_CREATED", from, from.plusMillis(100));
        assertThat(all).containsExactly(
                Map.entry(OutboxStatus.PENDING, 7L), Map.entry(OutboxStatus.PUBLISHING, 0L),
                Map.entry(OutboxStatus.PUBLISHED, 2L), Map.entry(OutboxStatus.FAILED, 0L),
                Map.entry(OutboxStatus.CANCELLED, 0L), Map.entry(OutboxStatus.DEAD, 1L));
        Map<OutboxStatus, Long> window = outbox().countByStatus("ORDER_CREATED", from.plusMillis(10), from.plusMillis(30));
        assertThat(window.get(OutboxStatus.PUBLISHED)).as("E-1 and E-2; E-3 at +30ms is outside").isEqualTo(2L);
        assertThat(window.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(2L);
        assertThatThrownBy(() -> outbox().countByStatus("ORDER_CREATED", from, from))
                .isInstanceOf(ValidationException.class).hasMessageContaining("to");
    }

    @Test
    final void backlogCountsUnfinishedAndDeadEventsAndAgesTheOldestUnfinishedOne() throws Exception {
        Backlog empty = outbox().backlog();
        assertThat(empty.unfinished()).isZero();
        assertThat(empty.dead()).isZero();
        assertThat(empty.oldestUnfinishedAge()).isEmpty();

        Instant first = clock.instant();
        writeEvents(7, QueryContract::event); // E-0 at first, E-1 at +10ms, ...
        setOutbox("E-0", "publish_status = 2", null);
        setOutbox("E-1", "publish_status = 5", null);
        setOutbox("E-2", "publish_status = 3", null);
        setOutbox("E-3", "publish_status = 1", null);
        setOutbox("E-4", "publish_status = 4", null);
        clock.advance(Duration.ofSeconds(30));
        Backlog b = outbox().backlog();
        assertThat(b.pending()).isEqualTo(2);
        assertThat(b.inProgress()).isEqualTo(1);
        assertThat(b.failed()).isEqualTo(1);
        assertThat(b.dead()).isEqualTo(1);
        assertThat(b.unfinished()).isEqualTo(4);
        assertThat(b.oldestUnfinishedTime()).as("E-2, the FAILED one; E-0 is published, E-1 dead").isEqualTo(first.plusMillis(20));
        assertThat(b.oldestUnfinishedAge()).contains(Duration.between(first.plusMillis(20), clock.instant()));
    }

    @Test
    final void failedByTopicAndMostRetriedListNewestUpdatesFirst() throws Exception {
        writeEvents(6, QueryContract::event);
        Instant t = clock.instant();
        setOutbox("E-0", "publish_status = 3, retry_count = 4, update_time = ?", t.plusSeconds(1));
        setOutbox("E-2", "publish_status = 3, retry_count = 1, update_time = ?", t.plusSeconds(3));
        setOutbox("E-4", "publish_status = 3, retry_count = 3, update_time = ?", t.plusSeconds(2));
        setOutbox("E-1", "publish_status = 3, retry_count = 5, update_time = ?", t.plusSeconds(4));
        setOutbox("E-3", "publish_status = 5, retry_count = 6, update_time = ?", t.plusSeconds(5));
        assertThat(readAll(p -> outbox().failedByTopic("order.event", p), 1)).extracting(OutboxRecord::eventNo)
                .containsExactly("E-2", "E-4", "E-0");
        assertThat(readAll(p -> outbox().mostRetried(3, p), 2)).extracting(OutboxRecord::eventNo)
                .containsExactly("E-3", "E-1", "E-4", "E-0");
        assertThat(readAll(p -> outbox().byStatus(OutboxStatus.DEAD, p), 5)).extracting(OutboxRecord::eventNo)
                .containsExactly("E-3");
    }

    @Test
    final void pageLimitsAndCursorsAreChecked() {
        assertThatThrownBy(() -> PageRequest.first(0)).isInstanceOf(ValidationException.class)
                .hasMessageContaining("limit").hasMessageContaining("1000");
        assertThatThrownBy(() -> PageRequest.first(1001)).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> outbox().pending(PageRequest.after("not-a-cursor", 10)))
                .isInstanceOf(ValidationException.class).hasMessageContaining("after");
        assertThatThrownBy(() -> outbox().dueRetries(PageRequest.after("12", 10)))
                .as("an id cursor given to a time-ordered query").isInstanceOf(ValidationException.class);
    }

    @Test
    final void messageQueriesFollowTheSameRules() throws Exception {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int k = i;
            ids.add(inTx(c -> postbox.messages().create(c, MessageEvent.builder().eventNo("M-" + k)
                    .eventType(k < 5 ? "ORDER_CREATED" : "OTHER").biz("ORDER", "O-" + (k % 2))
                    .payload("{}").traceId("t-" + (k % 2)).build())).id());
            clock.advance(Duration.ofMillis(10));
        }
        try (Connection c = ds.getConnection()) {
            postbox.messages().claim(c, ids.get(0));
            postbox.messages().claim(c, ids.get(1));
            postbox.messages().fail(c, ids.get(1), "timeout", Duration.ofSeconds(30));
            postbox.messages().claim(c, ids.get(2));
        }
        assertThat(readAll(messages()::pending, 2)).extracting(MessageRecord::id)
                .containsExactly(ids.get(3), ids.get(4), ids.get(5));
        assertThat(readAll(messages()::dueRetries, 2)).isEmpty();
        clock.advance(Duration.ofSeconds(30));
        assertThat(readAll(messages()::dueRetries, 2)).extracting(MessageRecord::id).containsExactly(ids.get(1));
        assertThat(readAll(p -> messages().stuckProcessing(Duration.ofSeconds(30), p), 5)).extracting(MessageRecord::id)
                .containsExactly(ids.get(0), ids.get(2));
        assertThat(readAll(p -> messages().stuckProcessing(Duration.ofMinutes(5), p), 5)).isEmpty();
        assertThat(readAll(p -> messages().byBiz("ORDER", "O-1", p), 1)).extracting(MessageRecord::id)
                .containsExactly(ids.get(1), ids.get(3), ids.get(5));
        assertThat(readAll(p -> messages().byTraceId("t-0", p), 1)).extracting(MessageRecord::id)
                .containsExactly(ids.get(0), ids.get(2), ids.get(4));
        assertThat(messages().byEventNo("M-1")).get().extracting(MessageRecord::failReason).isEqualTo("timeout");
        assertThat(readAll(p -> messages().mostRetried(1, p), 5)).extracting(MessageRecord::id).containsExactly(ids.get(1));
        assertThat(readAll(p -> messages().byStatus(MessageStatus.PROCESSING, p), 1)).extracting(MessageRecord::id)
                .containsExactly(ids.get(0), ids.get(2));
        Map<MessageStatus, Long> counts = messages().countByStatus("ORDER_CREATED", START, START.plusSeconds(60));
        assertThat(counts.get(MessageStatus.PENDING)).isEqualTo(2L);
        assertThat(counts.get(MessageStatus.PROCESSING)).isEqualTo(2L);
        assertThat(counts.get(MessageStatus.FAILED)).isEqualTo(1L);
        assertThat(counts.get(MessageStatus.SUCCEEDED)).isZero();
        Backlog backlog = messages().backlog();
        assertThat(backlog.pending()).isEqualTo(3);
        assertThat(backlog.inProgress()).as("PROCESSING").isEqualTo(2);
        assertThat(backlog.failed()).isEqualTo(1);
        assertThat(backlog.dead()).isZero();
        assertThat(backlog.oldestUnfinishedTime()).as("M-0, PROCESSING, the first created").isEqualTo(START);
    }

    @Test
    final void storedTimesAreTheClocksInstantsWhateverTheSessionTimeZone() throws Exception {
        clock.set(Instant.parse("2026-03-08T10:15:30.123Z"));
        inTx(c -> postbox.outbox().write(c, event(1).build()));
        assertThat(outbox().byEventNo("E-1").orElseThrow().createTime()).isEqualTo(Instant.parse("2026-03-08T10:15:30.123Z"));
        String utc = queryString("SELECT " + db.utcText("create_time") + " FROM " + postbox.tables().outbox()
                + " WHERE event_no = 'E-1'");
        assertThat(utc).as("the column holds UTC as the database itself sees it").startsWith("2026-03-08 10:15:30.123");
        assertThat(outbox().countByStatus("ORDER_CREATED", Instant.parse("2026-03-08T10:15:30.123Z"),
                Instant.parse("2026-03-08T10:15:30.124Z")).get(OutboxStatus.PENDING)).isEqualTo(1L);
        assertThat(outbox().countByStatus("ORDER_CREATED", Instant.parse("2026-03-08T10:15:30.124Z"),
                Instant.parse("2026-03-09T00:00:00Z")).get(OutboxStatus.PENDING)).isZero();
    }
}
