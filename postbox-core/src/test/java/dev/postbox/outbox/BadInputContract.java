package dev.postbox.outbox;

import dev.postbox.Postbox;
import dev.postbox.ValidationException;
import dev.postbox.message.MessageEvent;
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
                bad("eventNo", "at most 64 characters (was 65)", b -> b.eventNo("E".repeat(65))),
                bad("eventNo", "must not start or end with whitespace", b -> b.eventNo(" E-1")),
                bad("aggregateId", "at most 64 characters (was 65)", b -> b.aggregateId("O".repeat(65))),
                bad("aggregateType", "at most 64 characters (was 100)", b -> b.aggregateType("A".repeat(100))),
                bad("eventType", "at most 64 characters (was 65)", b -> b.eventType("T".repeat(65))),
                bad("source", "at most 64 characters (was 65)", b -> b.source("s".repeat(65))),
                bad("channel", "at most 32 characters (was 33)", b -> b.channel("C".repeat(33))),
                bad("topic", "at most 128 characters (was 129)", b -> b.topic("t".repeat(129))),
                bad("routingKey", "at most 128 characters (was 129)", b -> b.routingKey("r".repeat(129))),
                bad("traceId", "at most 128 characters (was 129)", b -> b.traceId("x".repeat(129))),
                bad("remark", "at most 500 characters (was 501)", b -> b.remark("x".repeat(501))),
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
                arguments("bizId", "at most 64 characters (was 65)", (Consumer<MessageEvent.Builder>) b -> b.biz("ORDER", "9".repeat(65))),
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
}
