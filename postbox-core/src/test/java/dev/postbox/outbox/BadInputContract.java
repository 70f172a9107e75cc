package dev.postbox.outbox;

import dev.postbox.Postbox;
import dev.postbox.common.ValidationException;
import dev.postbox.message.MessageEvent;
import dev.postbox.outbox.TextCases.TextCase;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.Connection;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Every kind of bad input is refused before any SQL with an exception naming the field and the limit;
 * nothing is written and the caller's transaction goes on: its business row still commits.
 */
public abstract class BadInputContract extends DatabaseContract {

    private static final int PAYLOAD_LIMIT = 1024;
    private Postbox strict;

    @BeforeAll
    final void strictPostbox() {
        strict = newPostbox(b -> b.maxPayloadBytes(PAYLOAD_LIMIT).maxHeadersBytes(256).source(null));
    }

    private static OutboxEvent.Builder valid() {
        return OutboxEvent.builder().eventNo("E-1").aggregate("ORDER", "O-1").eventType("ORDER_CREATED")
                .source("order-service").channel("MQ").topic("order.event").payload("{\"ok\":true}");
    }

    private static Arguments bad(String field, String limit, Consumer<OutboxEvent.Builder> breakIt) {
        return arguments(field, limit, breakIt);
    }

    static Stream<Arguments> badOutboxEvents() {
        return Stream.of(
                bad("aggregateType", "is required", b -> b.aggregateType(null)),
                bad("aggregateId", "must not be blank", b -> b.aggregateId("   ")),
                bad("eventType", "is required", b -> b.eventType(null)),
                bad("channel", "is required", b -> b.channel(null)),
                bad("source", "is required", b -> b.source(null)),
                bad("eventNo", "at most 64 characters", b -> b.eventNo("E".repeat(65))),
                bad("eventNo", "must not start or end with whitespace", b -> b.eventNo(" E-1")),
                bad("aggregateId", "at most 64 characters", b -> b.aggregateId("O".repeat(65))),
                bad("aggregateType", "at most 64 characters", b -> b.aggregateType("A".repeat(100))),
                bad("eventType", "at most 64 characters", b -> b.eventType("T".repeat(65))),
                bad("source", "at most 64 characters", b -> b.source("s".repeat(65))),
                bad("channel", "at most 32 characters", b -> b.channel("C".repeat(33))),
                bad("topic", "at most 128 characters", b -> b.topic("t".repeat(129))),
                bad("routingKey", "at most 128 characters", b -> b.routingKey("r".repeat(129))),
                bad("traceId", "at most 128 characters", b -> b.traceId("x".repeat(129))),
                bad("remark", "at most 500 characters", b -> b.remark("x".repeat(501))),
                bad("aggregateId", "NUL", b -> b.aggregateId("O-\0-1")),
                bad("payload", "is required", b -> b.payload(null)),
                bad("payload", "is empty", b -> b.payload("  ")),
                bad("payload", "not valid JSON", b -> b.payload("{\"orderNo\": ")),
                bad("payload", "not valid JSON", b -> b.payload("{orderNo: 1}")),
                bad("payload", "after the first value", b -> b.payload("{} {}")),
                bad("payload", "Duplicate field", b -> b.payload("{\"a\":1,\"a\":2}")),
                bad("payload", "at most 1024 bytes of UTF-8 (was 1026)", b -> b.payload("\"" + "x".repeat(1024) + "\"")),
                bad("payload", "at most 1024 bytes of UTF-8 (was 1538)", b -> b.payload("\"" + "é".repeat(768) + "\"")),
                bad("maxRetries", "between 0 and 1000 (was -1)", b -> b.maxRetries(-1)),
                bad("maxRetries", "between 0 and 1000 (was 1001)", b -> b.maxRetries(1001)),
                bad("eventVersion", "between 1 and 2147483647 (was 0)", b -> b.eventVersion(0)),
                bad("headers.tenantId", "value is required", b -> b.header("tenantId", null)),
                bad("headers.Postbox-Event-No", "reserved for the transport envelope", b -> b.header("Postbox-Event-No", "x")),
                bad("headers", "at most 256 bytes", b -> b.header("big", "v".repeat(300))));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("badOutboxEvents")
    final void badOutboxEventIsRefusedBeforeAnySql(String field, String limit, Consumer<OutboxEvent.Builder> breakIt)
            throws Exception {
        OutboxEvent.Builder b = valid();
        breakIt.accept(b);
        OutboxEvent event = b.build();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, "O-before");
            assertThatThrownBy(() -> strict.outbox().write(c, event))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo(field))
                    .hasMessageStartingWith(field + ":")
                    .hasMessageContaining(limit);
            assertThatThrownBy(() -> strict.outbox().writeAll(c, List.of(valid().eventNo("E-0").build(), event)))
                    .isInstanceOfSatisfying(ValidationException.class,
                            e -> assertThat(e.field()).isEqualTo("events[1]." + field))
                    .hasMessageContaining(limit);
            // the transaction is untouched: more work and the commit still succeed
            insertOrder(c, "O-after");
            c.commit();
        }
        assertThat(count(postbox.tables().outbox())).isZero();
        assertThat(count("app_order")).isEqualTo(2);
    }

    @Test
    final void aNullEventInABatchIsNamedByItsIndex() throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> strict.outbox().writeAll(c, java.util.Arrays.asList(valid().build(), null)))
                    .isInstanceOf(ValidationException.class).hasMessageStartingWith("events[1]:");
            c.commit();
        }
        assertThat(count(postbox.tables().outbox())).isZero();
    }

    static Stream<Arguments> badMessageEvents() {
        return Stream.<Arguments>of(
                arguments("bizType", "is required", (Consumer<MessageEvent.Builder>) b -> b.biz(null, "O-1")),
                arguments("bizId", "at most 64 characters", (Consumer<MessageEvent.Builder>) b -> b.biz("ORDER", "9".repeat(65))),
                arguments("eventType", "must not be blank", (Consumer<MessageEvent.Builder>) b -> b.eventType("")),
                arguments("payload", "not valid JSON", (Consumer<MessageEvent.Builder>) b -> b.payload("[1,")),
                arguments("maxRetries", "between 0 and 1000 (was -3)", (Consumer<MessageEvent.Builder>) b -> b.maxRetries(-3)),
                arguments("source", "is required", (Consumer<MessageEvent.Builder>) b -> b.source(null)));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("badMessageEvents")
    final void badMessageEventIsRefusedBeforeAnySql(String field, String limit, Consumer<MessageEvent.Builder> breakIt)
            throws Exception {
        MessageEvent.Builder b = MessageEvent.builder().eventNo("M-1").eventType("SEND_SMS").biz("ORDER", "O-1")
                .source("order-service").payload("{}");
        breakIt.accept(b);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, "O-before");
            assertThatThrownBy(() -> strict.messages().create(c, b.build()))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo(field))
                    .hasMessageContaining(limit);
            c.commit();
        }
        assertThat(count(postbox.tables().message())).isZero();
        assertThat(count("app_order")).isEqualTo(1);
    }

    // ---- every text field: stored and read back exactly, or refused naming the field and the limit ----

    /** One text field of an event: how to set it, how to read it back, its column size and whether it is a key. */
    private record Field<B, R>(String name, int max, boolean key, java.util.function.BiConsumer<B, String> set,
                               java.util.function.Function<R, String> get) {
    }

    private static final List<Field<OutboxEvent.Builder, OutboxRecord>> OUTBOX_FIELDS = List.of(
            new Field<>("eventNo", 64, true, OutboxEvent.Builder::eventNo, OutboxRecord::eventNo),
            new Field<>("aggregateType", 64, true, OutboxEvent.Builder::aggregateType, OutboxRecord::aggregateType),
            new Field<>("aggregateId", 64, true, OutboxEvent.Builder::aggregateId, OutboxRecord::aggregateId),
            new Field<>("eventType", 64, true, OutboxEvent.Builder::eventType, OutboxRecord::eventType),
            new Field<>("source", 64, true, OutboxEvent.Builder::source, OutboxRecord::source),
            new Field<>("channel", 32, true, OutboxEvent.Builder::channel, OutboxRecord::channel),
            new Field<>("topic", 128, false, OutboxEvent.Builder::topic, OutboxRecord::topic),
            new Field<>("routingKey", 128, false, OutboxEvent.Builder::routingKey, OutboxRecord::routingKey),
            new Field<>("traceId", 128, false, OutboxEvent.Builder::traceId, OutboxRecord::traceId),
            new Field<>("remark", 500, false, OutboxEvent.Builder::remark, OutboxRecord::remark),
            new Field<>("headers", 128, false, (b, v) -> b.header(v, "v"), r -> r.headers().keySet().iterator().next()),
            new Field<>("headers.h", Integer.MAX_VALUE, false, (b, v) -> b.header("h", v), r -> r.headers().get("h")));

    private static final List<Field<MessageEvent.Builder, dev.postbox.message.MessageRecord>> MESSAGE_FIELDS = List.of(
            new Field<>("eventNo", 64, true, MessageEvent.Builder::eventNo, dev.postbox.message.MessageRecord::eventNo),
            new Field<>("eventType", 64, true, MessageEvent.Builder::eventType, dev.postbox.message.MessageRecord::eventType),
            new Field<>("bizType", 64, true, (b, v) -> b.biz(v, "O-1"), dev.postbox.message.MessageRecord::bizType),
            new Field<>("bizId", 64, true, (b, v) -> b.biz("ORDER", v), dev.postbox.message.MessageRecord::bizId),
            new Field<>("source", 64, true, MessageEvent.Builder::source, dev.postbox.message.MessageRecord::source),
            new Field<>("traceId", 128, false, MessageEvent.Builder::traceId, dev.postbox.message.MessageRecord::traceId),
            new Field<>("remark", 500, false, MessageEvent.Builder::remark, dev.postbox.message.MessageRecord::remark));

    private static final String EMOJI = TextCases.EMOJI;

    private boolean countsUtf16() {
        return db.kind().equals("h2");
    }

    private Stream<TextCase> cases(String target, String field, int max, boolean key) {
        return TextCases.of(target, field, max, key, countsUtf16());
    }

    final Stream<TextCase> outboxTextCases() {
        return OUTBOX_FIELDS.stream().flatMap(f -> cases("outbox", f.name(), f.max(), f.key()));
    }

    final Stream<TextCase> messageTextCases() {
        return MESSAGE_FIELDS.stream().flatMap(f -> cases("message", f.name(), f.max(), f.key()));
    }

    private static <B, R> Field<B, R> field(List<Field<B, R>> fields, String name) {
        return fields.stream().filter(f -> f.name().equals(name)).findFirst().orElseThrow();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("outboxTextCases")
    final void everyOutboxTextFieldIsStoredExactlyOrRefusedNamingItsLimit(TextCase tc) throws Exception {
        Field<OutboxEvent.Builder, OutboxRecord> f = field(OUTBOX_FIELDS, tc.field());
        OutboxEvent.Builder b = valid().eventNo("E-text");
        f.set().accept(b, tc.value());
        OutboxEvent event = b.build();
        String eventNo = event.eventNo();
        if (tc.refusal() != null) {
            refusedWithNothingWritten(c -> postbox.outbox().write(c, event), tc, postbox.tables().outbox());
            return;
        }
        inTx(c -> {
            insertOrder(c, "O-biz");
            return postbox.outbox().write(c, event);
        });
        OutboxRecord stored = postbox.queries().outbox().byEventNo(eventNo).orElseThrow();
        assertThat(f.get().apply(stored)).as("read back").isEqualTo(tc.value());
        assertThat(count("app_order")).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("messageTextCases")
    final void everyMessageEventTextFieldIsStoredExactlyOrRefusedNamingItsLimit(TextCase tc) throws Exception {
        Field<MessageEvent.Builder, dev.postbox.message.MessageRecord> f = field(MESSAGE_FIELDS, tc.field());
        MessageEvent.Builder b = MessageEvent.builder().eventNo("M-text").eventType("SEND_SMS").biz("ORDER", "O-1")
                .source("order-service").payload("{}");
        f.set().accept(b, tc.value());
        MessageEvent event = b.build();
        if (tc.refusal() != null) {
            refusedWithNothingWritten(c -> postbox.messages().create(c, event), tc, postbox.tables().message());
            return;
        }
        inTx(c -> {
            insertOrder(c, "O-biz");
            return postbox.messages().create(c, event);
        });
        var stored = postbox.queries().messages().byEventNo(event.eventNo()).orElseThrow();
        assertThat(f.get().apply(stored)).as("read back").isEqualTo(tc.value());
        assertThat(count("app_order")).isEqualTo(1);
    }

    /** A write that must be refused naming the field and the limit: nothing in {@code table}, the business rows commit. */
    protected final void refusedWithNothingWritten(TxWork<?> write, TextCase tc, String table) throws Exception {
        refusedWithNothingWritten(write, tc.field(), tc.refusal(), table);
    }

    @Test
    final void keysThatDifferInCaseOrByOneEmojiAreDifferentEvents() throws Exception {
        List<String> keys = List.of("Order-1", "order-1", "ORDER-1", "O-" + EMOJI, "O-\uD83D\uDE01", "O-é", "O-e\u0301");
        inTx(c -> {
            for (String k : keys) {
                assertThat(postbox.outbox().write(c, valid().eventNo(k).aggregate("ORDER", k).build()).outcome())
                        .as(k).isEqualTo(WriteResult.Outcome.INSERTED);
            }
            return null;
        });
        for (String k : keys) {
            OutboxRecord r = postbox.queries().outbox().byEventNo(k).orElseThrow();
            assertThat(r.aggregateId()).isEqualTo(k);
            assertThat(postbox.queries().outbox().byAggregate("ORDER", k, dev.postbox.query.PageRequest.first(10)).items())
                    .extracting(OutboxRecord::eventNo).containsExactly(k);
        }
    }

    // ---- JSON a database refuses after the parser accepted it ----

    /** A payload, and per database (postgresql, mariadb, h2) null (stored) or the refusal expected. */
    static Stream<Arguments> dialectJson() {
        String deep31 = "[".repeat(31) + "1" + "]".repeat(31);
        String deep32 = "[".repeat(32) + "1" + "]".repeat(32);
        String objects32 = "{\"a\":".repeat(32) + "1" + "}".repeat(32);
        String deep1001 = "[".repeat(1001) + "]".repeat(1001);
        return Stream.of(
                arguments("31 levels of arrays", deep31, null, null, null),
                arguments("32 levels of arrays", deep32, null, "accepts at most 31", null),
                arguments("32 levels of objects", objects32, null, "accepts at most 31", null),
                arguments("1001 levels", deep1001, "1000", "accepts at most 31", "1000"),
                arguments("escaped lone high surrogate", "{\"s\":\"\\ud800\"}", null, "escaped unpaired surrogate", "escaped unpaired surrogate"),
                arguments("escaped lone low surrogate", "[\"x\\udc00\"]", null, "escaped unpaired surrogate", "escaped unpaired surrogate"),
                arguments("escaped lone surrogate as a key", "{\"\\ud800\":1}", null, "escaped unpaired surrogate", "escaped unpaired surrogate"),
                arguments("escaped surrogate pair", "\"\\ud83d\\ude00\"", null, null, null),
                arguments("escaped NUL", "\"\\u0000\"", null, null, null),
                arguments("exponent past an int", "1e2147483648", null, null, "out of the range"),
                arguments("negative exponent past an int", "{\"n\":1e-2147483648}", null, null, "out of the range"),
                arguments("largest int exponent", "1e2147483647", null, null, null),
                arguments("a long integer", "123456789012345678901234567890123456789", null, null, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dialectJson")
    final void payloadThatTheDatabaseWouldRefuseIsRefusedFirst(String what, String json, String pg, String mariadb,
                                                                 String h2) throws Exception {
        String refusal = switch (db.kind()) {
            case "postgresql" -> pg;
            case "mariadb" -> mariadb;
            default -> h2;
        };
        TextCase tc = new TextCase("outbox", "payload", what, json, refusal);
        OutboxEvent event = valid().payload(json).build();
        MessageEvent message = MessageEvent.builder().eventNo("M-1").eventType("SEND_SMS").biz("ORDER", "O-1")
                .source("order-service").payload(json).build();
        if (refusal != null) {
            refusedWithNothingWritten(c -> postbox.outbox().write(c, event), tc, postbox.tables().outbox());
            exec("DELETE FROM app_order");
            refusedWithNothingWritten(c -> postbox.messages().create(c, message), tc, postbox.tables().message());
            return;
        }
        inTx(c -> {
            postbox.outbox().write(c, event);
            return postbox.messages().create(c, message);
        });
        assertThat(count(postbox.tables().outbox())).isEqualTo(1);
        assertThat(count(postbox.tables().message())).isEqualTo(1);
    }

    // ---- writeAll is all or nothing ----

    @Test
    final void aRowTheDatabaseRefusesInALaterChunkUndoesTheWholeWriteAll() throws Exception {
        String table = postbox.tables().outbox();
        exec("ALTER TABLE " + table + " ADD CONSTRAINT ck_no_poison CHECK (remark IS NULL OR remark <> 'poison')");
        try {
            List<OutboxEvent> events = new java.util.ArrayList<>();
            for (int i = 0; i < 1_200; i++) {
                events.add(valid().eventNo("E-" + i).remark(i == 1_100 ? "poison" : null).build());
            }
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                insertOrder(c, "O-before");
                assertThatThrownBy(() -> postbox.outbox().writeAll(c, events)).isInstanceOf(dev.postbox.common.PostboxSqlException.class);
                // nothing of the call is left, and the transaction goes on (on PostgreSQL too)
                postbox.outbox().write(c, valid().eventNo("E-after").build());
                insertOrder(c, "O-after");
                c.commit();
            }
            assertThat(count(table)).isEqualTo(1);
            assertThat(postbox.queries().outbox().byEventNo("E-after")).isPresent();
            assertThat(count("app_order")).isEqualTo(2);
            // and a batch of the same size without the poison row is written whole
            List<OutboxEvent> clean = events.stream().map(e -> valid().eventNo(e.eventNo()).build()).toList();
            List<WriteResult> results = inTx(c -> postbox.outbox().writeAll(c, clean));
            assertThat(results).extracting(WriteResult::outcome).containsOnly(WriteResult.Outcome.INSERTED);
            assertThat(count(table)).isEqualTo(1_201);
        } finally {
            exec("ALTER TABLE " + table + " DROP CONSTRAINT ck_no_poison");
        }
    }
}
