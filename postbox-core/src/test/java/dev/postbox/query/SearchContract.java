package dev.postbox.query;

import dev.postbox.common.ValidationException;
import dev.postbox.message.MessageEvent;
import dev.postbox.message.MessageRecord;
import dev.postbox.message.MessageStatus;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
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
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The console's search ({@link OutboxSearch}, and {@link MessageSearch} on the message events) on a real database:
 * every qualifier finds exactly the events it names, newest first, keyset-paged without gaps or repeats; a page
 * reads a bounded number of rows; a search no index can drive is refused; each driver's statement reads an index,
 * never the whole table.
 */
public abstract class SearchContract extends DatabaseContract {

    private static final int EVENTS = 120;
    private final List<OutboxRecord> all = new ArrayList<>();

    /** Fails unless {@code sql} with {@code params} bound reads {@code table} through an index (EXPLAIN). */
    protected abstract void assertNoFullScan(String table, String sql, List<Object> params) throws SQLException;

    /** The rows of {@code EXPLAIN sql} with {@code params} bound, each as {@code line} renders it. */
    protected List<String> explain(String sql, List<Object> params, ExplainLine line) throws SQLException {
        return explain(postbox.dialect(), sql, params, line);
    }

    /** Refreshes the planner's statistics of {@code table}. */
    protected abstract void analyze(String table) throws SQLException;

    private OutboxSearch search() {
        return postbox.queries().outboxSearch();
    }

    /**
     * 120 events a second apart: aggregates ORDER/ORD-(i % 10) and PAYMENT/ORD-(i % 7) alternately, four event types,
     * two topics, channels MQ and HTTP; every 10th FAILED with "connection refused" and i % 5 attempts, every 25th DEAD.
     */
    @BeforeEach
    final void events() throws Exception {
        all.clear();
        // one transaction (one connection), the clock a second further for each event
        inTx(c -> {
            for (int k = 0; k < EVENTS; k++) {
                postbox.outbox().write(c, OutboxEvent.builder().eventNo("E-" + k)
                        .aggregate(k % 2 == 0 ? "ORDER" : "PAYMENT", "ORD-" + (k % 2 == 0 ? k % 10 : k % 7))
                        .eventType("T" + (k % 4)).channel(k % 3 == 0 ? "HTTP" : "MQ").topic(k % 2 == 0 ? "orders" : "payments")
                        .traceId("trace-" + (k % 6)).payload("{\"i\":" + k + "}").build());
                clock.advance(Duration.ofSeconds(1));
            }
            return null;
        });
        for (int i = 0; i < EVENTS; i += 10) {
            set("E-" + i, "publish_status = 3, retry_count = " + (i % 5 + i / 10 % 3) + ", fail_reason = 'Connection REFUSED by"
                    + " broker " + i + "'");
        }
        for (int i = 5; i < EVENTS; i += 25) {
            set("E-" + i, "publish_status = 5, retry_count = 6, fail_reason = 'poison: SKU-POISON'");
        }
        try (Connection c = ds.getConnection(); java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT " + dev.postbox.outbox.OutboxRows.COLUMNS + " FROM "
                     + postbox.tables().outbox() + " ORDER BY id")) {
            while (rs.next()) {
                all.add(dev.postbox.outbox.OutboxRows.read(rs, postbox.dialect()));
            }
        }
        assertThat(all).hasSize(EVENTS);
    }

    private void set(String eventNo, String assignments) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "UPDATE " + postbox.tables().outbox() + " SET " + assignments + " WHERE event_no = ?")) {
            ps.setString(1, eventNo);
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }

    /** Every page of {@code query}, 7 at a time: the event_nos in order. */
    private List<String> everyPage(String query) {
        List<String> out = new ArrayList<>();
        PageRequest page = PageRequest.first(7);
        for (int guard = 0; guard < 100; guard++) {
            OutboxSearch.Result r = search().search(query, page);
            assertThat(r.items()).hasSizeLessThanOrEqualTo(7);
            r.items().forEach(e -> out.add(e.eventNo()));
            if (r.nextCursor() == null) {
                return out;
            }
            page = PageRequest.after(r.nextCursor(), 7);
        }
        throw new AssertionError("more than 100 pages for " + query);
    }

    /** What the search must find: the events matching {@code p}, newest first (by id). */
    private List<String> expected(Predicate<OutboxRecord> p) {
        return all.stream().filter(p).sorted((a, b) -> Long.compare(b.id(), a.id())).map(OutboxRecord::eventNo).toList();
    }

    @Test
    final void everyQualifierFindsExactlyItsEventsNewestFirstOverEveryPage() {
        assertThat(everyPage("ORD-3")).as("a bare word: the aggregate id of any type")
                .containsExactlyElementsOf(expected(e -> e.aggregateId().equals("ORD-3"))).isNotEmpty();
        assertThat(everyPage("aggregate:PAYMENT/ORD-3"))
                .containsExactlyElementsOf(expected(e -> e.aggregateId().equals("ORD-3") && e.aggregateType().equals("PAYMENT")));
        assertThat(everyPage("event_no:E-17")).containsExactly("E-17");
        assertThat(everyPage("trace:trace-4")).containsExactlyElementsOf(expected(e -> "trace-4".equals(e.traceId())));
        assertThat(everyPage("status:dead")).containsExactlyElementsOf(expected(e -> e.status() == OutboxStatus.DEAD)).hasSize(5);
        assertThat(everyPage("status:failed,dead attempts>=3")).containsExactlyElementsOf(expected(e ->
                (e.status() == OutboxStatus.FAILED || e.status() == OutboxStatus.DEAD) && e.retryCount() >= 3));
        assertThat(everyPage("status:failed error:\"connection refused\"")).as("error text, case-insensitive")
                .containsExactlyElementsOf(expected(e -> e.status() == OutboxStatus.FAILED)).hasSize(10);
        assertThat(everyPage("error:sku-poison status:dead,failed"))
                .containsExactlyElementsOf(expected(e -> e.status() == OutboxStatus.DEAD));
        assertThat(everyPage("type:T2")).as("type: newest first by creation time")
                .containsExactlyElementsOf(expected(e -> e.eventType().equals("T2")));
        assertThat(everyPage("topic:payments channel:HTTP"))
                .containsExactlyElementsOf(expected(e -> e.topic().equals("payments") && e.channel().equals("HTTP")));
        Instant from = all.get(30).createTime();
        Instant before = all.get(50).createTime();
        assertThat(everyPage("after:" + from + " before:" + before)).containsExactlyElementsOf(expected(e ->
                !e.createTime().isBefore(from) && e.createTime().isBefore(before))).hasSize(20);
        assertThat(everyPage("type:T1 after:" + from + " status:pending channel:MQ")).containsExactlyElementsOf(expected(e ->
                e.eventType().equals("T1") && !e.createTime().isBefore(from) && e.status() == OutboxStatus.PENDING
                        && e.channel().equals("MQ")));
        assertThat(everyPage("status:published")).isEmpty();
        assertThat(everyPage("ORD-3 status:dead trace:nobody")).isEmpty();
    }

    @Test
    final void theDriverIsTheMostSelectiveIndexedQualifier() {
        Instant now = clock.instant();
        assertThat(search().driver(SearchQuery.parse("status:dead type:T1 ORD-1", now))).isEqualTo(OutboxSearch.Driver.AGGREGATE);
        assertThat(search().driver(SearchQuery.parse("type:T1 status:dead", now))).isEqualTo(OutboxSearch.Driver.STATUS);
        assertThat(search().driver(SearchQuery.parse("type:T1 status:published", now))).isEqualTo(OutboxSearch.Driver.TYPE);
        assertThat(search().driver(SearchQuery.parse("topic:orders after:2h", now))).isEqualTo(OutboxSearch.Driver.TOPIC);
        assertThat(search().driver(SearchQuery.parse("before:2026-01-01", now))).isEqualTo(OutboxSearch.Driver.CREATED);
        assertThatThrownBy(() -> search().search("channel:MQ error:timeout attempts>=2", PageRequest.first(10)))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("query"))
                .hasMessageContaining("would read the whole table");
    }

    @Test
    final void aPageReadsABoundedNumberOfRowsAndItsCursorGoesOnWhereItStopped() throws Exception {
        int more = OutboxSearch.MAX_EXAMINED + 300;
        List<OutboxEvent> batch = new ArrayList<>();
        for (int i = 0; i < more; i++) {
            batch.add(OutboxEvent.builder().eventNo("B-" + i).aggregate("BULK", "B-" + i).eventType("T9").channel("MQ")
                    .topic("bulk").payload("{}").build());
            if (batch.size() == 1000 || i == more - 1) {
                List<OutboxEvent> b = List.copyOf(batch);
                inTx(c -> postbox.outbox().writeAll(c, b));
                batch.clear();
            }
        }
        // the only HTTP event of type T9 is the oldest: a search for it must read past MAX_EXAMINED rows of T9
        set("B-0", "publish_channel = 'HTTP'");
        // no time limit: this test counts rows, and a loaded machine must not cut a page short
        OutboxSearch unlimited = search().pageTimeLimit(java.time.Duration.ofDays(1));
        OutboxSearch.Result first = unlimited.search("type:T9 channel:HTTP", PageRequest.first(10));
        assertThat(first.items()).isEmpty();
        assertThat(first.examined()).isEqualTo(OutboxSearch.MAX_EXAMINED);
        assertThat(first.complete()).isFalse();
        assertThat(first.nextCursor()).isNotNull();
        OutboxSearch.Result second = unlimited.search("type:T9 channel:HTTP", PageRequest.after(first.nextCursor(), 10));
        assertThat(second.items()).extracting(OutboxRecord::eventNo).containsExactly("B-0");
        assertThat(second.examined()).isEqualTo(300);
        assertThat(second.complete()).isTrue();
        assertThat(second.nextCursor()).isNull();

        // a page whose time is up reads no further chunk (the first always): incomplete, and its cursor goes on
        OutboxSearch cut = search().pageTimeLimit(java.time.Duration.ZERO);
        List<String> found = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        long examined = 0;
        do {
            OutboxSearch.Result page = cut.search("type:T9 channel:HTTP",
                    cursor == null ? PageRequest.first(10) : PageRequest.after(cursor, 10));
            assertThat(page.examined()).as("one chunk a page").isBetween(1, 500);
            page.items().forEach(r -> found.add(r.eventNo()));
            examined += page.examined();
            cursor = page.nextCursor();
            pages++;
            if (cursor != null) {
                assertThat(page.complete()).isFalse();
            }
        } while (cursor != null && pages < 100);
        assertThat(found).as("the cut pages together find what the uncut ones found").containsExactly("B-0");
        assertThat(examined).as("every row read once").isEqualTo(more);
        assertThat(pages).isEqualTo((more + 499) / 500);
        assertThatThrownBy(() -> search().pageTimeLimit(java.time.Duration.ofMillis(-1)))
                .isInstanceOf(dev.postbox.common.ValidationException.class).hasMessageStartingWith("pageTimeLimit:");
    }

    @Test
    final void badSearchesAreRefusedNamingTheQualifier() {
        record Bad(String query, String field, String message) {
        }
        for (Bad bad : List.of(
                new Bad("", "query", "is empty"),
                new Bad("status:lost", "status", "unknown status \"lost\""),
                new Bad("colour:red", "query", "unknown qualifier 'colour:'"),
                new Bad("after:yesterday", "after", "must be a date"),
                new Bad("after:2026-12-02 before:2026-12-01", "after", "must be before"),
                new Bad("attempts>=many", "attempts", "whole number"),
                new Bad("attempts:3", "attempts", "attempts>=N"),
                new Bad("type>=3", "type", "type:value"),
                new Bad("ORD-1 ORD-2", "aggregate", "given twice"),
                new Bad("event_no:" + "x".repeat(65), "event_no", "at most 64"),
                new Bad("\"unclosed", "query", "cannot read"),
                new Bad("x".repeat(SearchQuery.MAX_LENGTH + 1), "query", "at most " + SearchQuery.MAX_LENGTH))) {
            assertThatThrownBy(() -> search().search(bad.query(), PageRequest.first(10))).as(bad.query())
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo(bad.field()))
                    .hasMessageContaining(bad.message());
        }
        assertThat(SearchQuery.parse("aggregate:\"ORDER/ORD 1\" error:\"said \\\"no\\\"\" status:dead,failed attempts>=2",
                clock.instant()).toString()).isEqualTo("aggregate:\"ORDER/ORD 1\" status:failed,dead error:\"said \\\"no\\\"\""
                + " attempts>=2");
        assertThatThrownBy(() -> search().search("ORD-1", PageRequest.after("not-a-cursor", 10)))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("after"));
    }

    @Test
    final void everyDriverReadsAnIndexNotTheTable() throws Exception {
        List<OutboxEvent> batch = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            batch.add(OutboxEvent.builder().eventNo("L-" + i).aggregate(i % 2 == 0 ? "ORDER" : "PAYMENT", "L-" + (i % 5000))
                    .eventType("LOAD" + (i % 20)).channel("MQ").topic("load-" + (i % 20)).traceId("lt-" + i).payload("{}").build());
            if (batch.size() == 1000) {
                List<OutboxEvent> b = List.copyOf(batch);
                inTx(c -> postbox.outbox().writeAll(c, b));
                batch.clear();
            }
        }
        exec("UPDATE " + postbox.tables().outbox() + " SET publish_status = 2 WHERE event_no LIKE 'L-%'");
        analyze(postbox.tables().outbox());
        Instant now = clock.instant();
        for (String q : List.of("L-42", "aggregate:ORDER/L-42", "event_no:L-7", "trace:lt-9", "status:dead",
                "status:failed,dead", "type:LOAD3", "type:LOAD3 after:1h", "topic:load-4", "after:" + now.minusSeconds(60),
                "status:published")) {
            SearchQuery parsed = SearchQuery.parse(q, now);
            OutboxSearch.Driver driver = search().driver(parsed);
            List<Object> params = params(parsed, driver);
            assertNoFullScan(postbox.tables().outbox(), search().drivingSql(parsed), params);
        }
        // the check itself can fail: what the refused "channel:MQ" would have run reads the whole table
        assertThatThrownBy(() -> assertNoFullScan(postbox.tables().outbox(), "SELECT id FROM " + postbox.tables().outbox()
                + " WHERE deleted = 0 AND publish_channel = ? LIMIT ?", List.of("MQ", 501))).isInstanceOf(AssertionError.class);
    }

    /**
     * Several statuses are read one index range each and merged by id: with more rows per status than one chunk
     * (500), unevenly interleaved, every page of {@code status:failed,dead attempts>=3} is newest first and the pages
     * together are every such event exactly once.
     */
    @Test
    final void severalStatusesMergeTheirRangesNewestFirstAcrossChunks() throws Exception {
        List<OutboxEvent> batch = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            batch.add(OutboxEvent.builder().eventNo("M-" + i).aggregate("ORDER", "M-" + i).eventType("M").channel("MQ")
                    .topic("m").payload("{}").build());
        }
        inTx(c -> postbox.outbox().writeAll(c, batch));
        String t = postbox.tables().outbox();
        // runs of DEAD (ids in blocks of 40 out of every 100), FAILED every 3rd elsewhere, the rest PUBLISHED
        exec("UPDATE " + t + " SET publish_status = 2 WHERE event_no LIKE 'M-%'");
        exec("UPDATE " + t + " SET publish_status = 5 WHERE event_no LIKE 'M-%' AND MOD(id, 100) < 40");
        exec("UPDATE " + t + " SET publish_status = 3 WHERE event_no LIKE 'M-%' AND MOD(id, 100) >= 40 AND MOD(id, 3) = 0");
        // one in seven has had three attempts: most rows read do not match, so whole chunks are used up
        exec("UPDATE " + t + " SET retry_count = 3 WHERE event_no LIKE 'M-%' AND MOD(id, 7) = 0");
        List<Long> expected = new ArrayList<>();
        try (Connection c = ds.getConnection(); java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT id FROM " + t + " WHERE publish_status IN (3, 5) AND retry_count >= 3 ORDER BY id DESC")) {
            while (rs.next()) {
                expected.add(rs.getLong(1));
            }
        }
        assertThat(expected.size()).as("a seventh of more rows of each status than one chunk").isGreaterThan(200);
        List<Long> seen = new ArrayList<>();
        PageRequest page = PageRequest.first(300);
        for (int guard = 0; guard < 100; guard++) {
            OutboxSearch.Result r = search().search("status:failed,dead attempts>=3", page);
            assertThat(r.driver()).isEqualTo(OutboxSearch.Driver.STATUS);
            r.items().forEach(e -> seen.add(e.id()));
            if (r.nextCursor() == null) {
                break;
            }
            page = PageRequest.after(r.nextCursor(), 300);
        }
        assertThat(seen).containsExactlyElementsOf(expected);
    }

    /** README's example ("Search"), as it is written there. */
    @Test
    final void theReadmeExampleRuns() {
        set1042();
        OutboxSearch.Result found = postbox.queries().outboxSearch()
                .search("ORD-1042 status:dead,failed", PageRequest.first(50));    // newest first
        for (OutboxRecord e : found.items()) {
            System.out.println(e.eventNo() + " " + e.status() + " " + e.failReason());
        }
        assertThat(found.items()).extracting(OutboxRecord::eventNo).containsExactly("R-1");
        if (found.nextCursor() != null) {                                    // found.complete(): false if the page stopped early
            found = postbox.queries().outboxSearch().search("ORD-1042 status:dead,failed", PageRequest.after(found.nextCursor(), 50));
        }
        assertThat(found.complete()).isTrue();
    }

    private void set1042() {
        try {
            for (String no : List.of("R-0", "R-1")) {
                inTx(c -> postbox.outbox().write(c, OutboxEvent.builder().eventNo(no).aggregate("ORDER", "ORD-1042")
                        .eventType("T").channel("MQ").topic("orders").payload("{}").build()));
            }
            set("R-1", "publish_status = 5, fail_reason = 'poison'");
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    // ---- the message events' search ---------------------------------------------------------------------------

    /**
     * 60 message events a second apart: biz ORDER/ORD-(k % 10) and PAYMENT/ORD-(k % 7) alternately, three event
     * types, six traces; every 10th FAILED with "Timeout talking to stock" and k % 5 attempts, every 25th DEAD.
     */
    private List<MessageRecord> messageEvents() throws Exception {
        inTx(c -> {
            for (int k = 0; k < 60; k++) {
                postbox.messages().create(c, MessageEvent.builder().eventNo("M-" + k)
                        .biz(k % 2 == 0 ? "ORDER" : "PAYMENT", "ORD-" + (k % 2 == 0 ? k % 10 : k % 7))
                        .eventType("H" + (k % 3)).traceId("mtrace-" + (k % 6)).payload("{\"k\":" + k + "}").build());
                clock.advance(Duration.ofSeconds(1));
            }
            return null;
        });
        for (int k = 0; k < 60; k += 10) {
            exec("UPDATE " + postbox.tables().message() + " SET event_status = 3, retry_count = " + (k % 5 + k / 10)
                    + ", fail_reason = 'Timeout talking to STOCK' WHERE event_no = 'M-" + k + "'");
        }
        for (int k = 5; k < 60; k += 25) {
            exec("UPDATE " + postbox.tables().message() + " SET event_status = 5, retry_count = 3,"
                    + " fail_reason = 'poison' WHERE event_no = 'M-" + k + "'");
        }
        List<MessageRecord> rows = new ArrayList<>();
        try (Connection c = ds.getConnection(); java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT " + dev.postbox.message.MessageRows.COLUMNS + " FROM "
                     + postbox.tables().message() + " ORDER BY id")) {
            while (rs.next()) {
                rows.add(dev.postbox.message.MessageRows.read(rs, postbox.dialect()));
            }
        }
        return rows;
    }

    private List<String> everyMessagePage(String query) {
        List<String> out = new ArrayList<>();
        PageRequest page = PageRequest.first(7);
        for (int guard = 0; guard < 100; guard++) {
            MessageSearch.Result r = postbox.queries().messageSearch().search(query, page);
            assertThat(r.items()).hasSizeLessThanOrEqualTo(7);
            r.items().forEach(e -> out.add(e.eventNo()));
            if (r.nextCursor() == null) {
                return out;
            }
            page = PageRequest.after(r.nextCursor(), 7);
        }
        throw new AssertionError("more than 100 pages for " + query);
    }

    @Test
    final void theMessageSearchFindsExactlyWhatEachQualifierNamesNewestFirst() throws Exception {
        List<MessageRecord> rows = messageEvents();
        java.util.function.Function<Predicate<MessageRecord>, List<String>> expected = p -> rows.stream().filter(p)
                .sorted((a, b) -> Long.compare(b.id(), a.id())).map(MessageRecord::eventNo).toList();
        assertThat(everyMessagePage("ORD-3")).as("a bare word: the business id of any type")
                .containsExactlyElementsOf(expected.apply(e -> e.bizId().equals("ORD-3"))).isNotEmpty();
        assertThat(everyMessagePage("biz:PAYMENT/ORD-3"))
                .containsExactlyElementsOf(expected.apply(e -> e.bizId().equals("ORD-3") && e.bizType().equals("PAYMENT")));
        assertThat(everyMessagePage("event_no:M-17")).containsExactly("M-17");
        assertThat(everyMessagePage("event_no:E-17")).as("an outbox event is not a message event").isEmpty();
        assertThat(everyMessagePage("trace:mtrace-4")).containsExactlyElementsOf(expected.apply(e -> "mtrace-4".equals(e.traceId())));
        assertThat(everyMessagePage("status:dead")).containsExactly("M-55", "M-30", "M-5");
        assertThat(everyMessagePage("status:failed,dead attempts>=3")).containsExactlyElementsOf(expected.apply(e ->
                (e.status() == MessageStatus.FAILED || e.status() == MessageStatus.DEAD) && e.retryCount() >= 3));
        assertThat(everyMessagePage("status:failed error:\"timeout talking\"")).as("M-30 is dead").hasSize(5);
        assertThat(everyMessagePage("type:H2")).containsExactlyElementsOf(expected.apply(e -> e.eventType().equals("H2")));
        Instant from = rows.get(10).createTime();
        Instant before = rows.get(20).createTime();
        assertThat(everyMessagePage("type:H1 after:" + from + " before:" + before + " status:pending"))
                .containsExactlyElementsOf(expected.apply(e -> e.eventType().equals("H1") && !e.createTime().isBefore(from)
                        && e.createTime().isBefore(before) && e.status() == MessageStatus.PENDING)).isNotEmpty();
        assertThat(everyMessagePage("status:succeeded")).isEmpty();
        MessageSearch search = postbox.queries().messageSearch();
        Instant now = clock.instant();
        assertThat(search.driver(MessageSearchQuery.parse("status:dead type:H1 ORD-1", now))).isEqualTo(MessageSearch.Driver.BIZ);
        assertThat(search.driver(MessageSearchQuery.parse("type:H1 status:dead", now))).isEqualTo(MessageSearch.Driver.STATUS);
        assertThat(search.driver(MessageSearchQuery.parse("type:H1 status:succeeded", now))).isEqualTo(MessageSearch.Driver.TYPE);
        assertThat(search.driver(MessageSearchQuery.parse("before:2026-01-01", now))).isEqualTo(MessageSearch.Driver.CREATED);
        assertThat(MessageSearchQuery.parse("biz:\"ORDER/ORD 1\" status:dead,failed attempts>=2", now).toString())
                .isEqualTo("biz:\"ORDER/ORD 1\" status:failed,dead attempts>=2");
    }

    @Test
    final void theMessageSearchRefusesWhatMessageEventsDoNotHave() {
        record Bad(String query, String field, String message) {
        }
        for (Bad bad : List.of(
                new Bad("topic:orders", "topic", "message events have no topic"),
                new Bad("ORD-1 channel:MQ", "channel", "message events have no channel"),
                new Bad("aggregate:ORDER/1", "query", "unknown qualifier 'aggregate:'; known: event_no:, biz:,"),
                new Bad("status:published", "status", "one of pending, processing, succeeded, failed, cancelled, dead"),
                new Bad("error:timeout attempts>=2", "query", "would read the whole table"),
                new Bad("biz:A/1 ORD-2", "biz", "given twice"),
                new Bad("", "query", "is empty: give a business id"))) {
            assertThatThrownBy(() -> postbox.queries().messageSearch().search(bad.query(), PageRequest.first(10)))
                    .as(bad.query())
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo(bad.field()))
                    .hasMessageContaining(bad.message());
        }
    }

    @Test
    final void everyMessageDriverReadsAnIndexNotTheTable() throws Exception {
        String t = postbox.tables().message();
        Instant at = clock.instant();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("INSERT INTO " + t
                + " (event_no, event_type, biz_type, biz_id, event_source, event_payload, event_status, trace_id,"
                + " create_time, update_time) VALUES (?, ?, ?, ?, 's', " + postbox.dialect().jsonParameter()
                + ", 2, ?, ?, ?)")) {
            c.setAutoCommit(false);
            for (int i = 0; i < 20_000; i++) {
                ps.setString(1, "ML-" + i);
                ps.setString(2, "LOAD" + (i % 20));
                ps.setString(3, i % 2 == 0 ? "ORDER" : "PAYMENT");
                ps.setString(4, "ML-" + (i % 5000));
                postbox.dialect().bindJson(ps, 5, "{}");
                ps.setString(6, "mlt-" + i);
                postbox.dialect().bindTime(ps, 7, at.minusSeconds(20_000 - i));
                postbox.dialect().bindTime(ps, 8, at);
                ps.addBatch();
                if (i % 1000 == 999) {
                    ps.executeBatch();
                }
            }
            c.commit();
        }
        analyze(t);
        MessageSearch search = postbox.queries().messageSearch();
        Instant now = clock.instant();
        for (String q : List.of("ML-42", "biz:ORDER/ML-42", "event_no:ML-7", "trace:mlt-9", "status:dead",
                "status:failed,dead", "type:LOAD3", "type:LOAD3 after:1h", "after:" + now.minusSeconds(60),
                "status:succeeded")) {
            MessageSearchQuery parsed = MessageSearchQuery.parse(q, now);
            List<Object> params = new ArrayList<>();
            switch (search.driver(parsed)) {
                case EVENT_NO -> params.add(parsed.eventNo());
                case BIZ -> {
                    if (parsed.bizType() == null) {
                        params.add("ORDER");
                        params.add("PAYMENT");
                    } else {
                        params.add(parsed.bizType());
                    }
                    params.add(parsed.bizId());
                }
                case TRACE -> params.add(parsed.traceId());
                case STATUS -> {
                }
                case TYPE, CREATED -> {
                    if (parsed.eventType() != null) {
                        params.add(parsed.eventType());
                    }
                    if (parsed.createdFrom() != null) {
                        params.add(parsed.createdFrom());
                    }
                    if (parsed.createdBefore() != null) {
                        params.add(parsed.createdBefore());
                    }
                }
            }
            params.add(501);
            assertNoFullScan(t, search.drivingSql(parsed), params);
        }
        assertThat(search.search("ML-42", PageRequest.first(10)).items()).extracting(MessageRecord::eventNo)
                .containsExactly("ML-15042", "ML-10042", "ML-5042", "ML-42");
    }

    /** The driving statement's parameters as {@link OutboxSearch} binds them (then the page's LIMIT). */
    private List<Object> params(SearchQuery q, OutboxSearch.Driver driver) {
        List<Object> p = new ArrayList<>();
        switch (driver) {
            case EVENT_NO -> p.add(q.eventNo());
            case AGGREGATE -> {
                if (q.aggregateType() == null) {
                    p.add("ORDER");
                    p.add("PAYMENT");
                } else {
                    p.add(q.aggregateType());
                }
                p.add(q.aggregateId());
            }
            case TRACE -> p.add(q.traceId());
            case STATUS -> {
            }
            case TYPE, TOPIC, CREATED -> {
                if (driver == OutboxSearch.Driver.TYPE) {
                    p.add(q.eventType());
                } else if (driver == OutboxSearch.Driver.TOPIC) {
                    p.add(q.topic());
                }
                if (q.createdFrom() != null) {
                    p.add(q.createdFrom());
                }
                if (q.createdBefore() != null) {
                    p.add(q.createdBefore());
                }
            }
        }
        p.add(501);
        return p;
    }
}
