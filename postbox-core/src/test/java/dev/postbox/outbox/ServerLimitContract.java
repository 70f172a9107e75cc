package dev.postbox.outbox;

import dev.postbox.Postbox;
import dev.postbox.common.ValidationException;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A payload limit the server cannot take is refused at build, and what the limit allows is written whole:
 * MySQL/MariaDB close the connection (and the caller's business transaction) on a statement above
 * {@code max_allowed_packet}, so one event must fit one statement and a batch is split to fit.
 */
public abstract class ServerLimitContract extends DatabaseContract {

    private static final int LARGEST_SETTING = 64 * 1024 * 1024;

    private long serverLimit() throws Exception {
        try (Connection c = ds.getConnection()) {
            return postbox.dialect().maxStatementBytes(c);
        }
    }

    /** A JSON string of {@code bytes} bytes made only of escaped backslashes, which a text protocol doubles. */
    private static String worstCasePayload(int bytes) {
        return "\"" + "\\\\".repeat((bytes - 2) / 2) + "\"";
    }

    @Test
    final void aPayloadLimitAboveTheServersStatementLimitIsRefusedAtBuild() throws Exception {
        long limit = serverLimit();
        if (db.kind().equals("mariadb")) {
            assertThat(limit).as("read from the server").isEqualTo(queryLong("SELECT @@max_allowed_packet"));
            int tooBig = (int) Math.min(LARGEST_SETTING, limit);
            assertThatThrownBy(() -> newPostbox(b -> b.maxPayloadBytes(tooBig)))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("maxPayloadBytes"))
                    .hasMessageContaining("max_allowed_packet is " + limit + " bytes")
                    .hasMessageContaining("maxPayloadBytes=" + tooBig);
        } else {
            assertThat(limit).as("no statement limit on " + db.kind()).isEqualTo(Long.MAX_VALUE);
            assertThat(newPostbox(b -> b.maxPayloadBytes(LARGEST_SETTING)).dialect()).isEqualTo(postbox.dialect());
        }
    }

    @Test
    final void theLargestPayloadTheServerTakesIsWrittenWholeEvenWhenEscapingDoublesIt() throws Exception {
        long limit = serverLimit();
        int payloadLimit = (int) Math.min(limit == Long.MAX_VALUE ? 2 * 1024 * 1024 : (limit - 16 * 1024) / 2 - 16 * 1024,
                LARGEST_SETTING);
        Postbox big = newPostbox(b -> b.maxPayloadBytes(payloadLimit));
        String payload = worstCasePayload(payloadLimit);
        assertThat(payload.length()).isBetween(payloadLimit - 1, payloadLimit);
        inTx(c -> {
            insertOrder(c, "O-big");
            return big.outbox().write(c, OutboxEvent.builder().eventNo("E-big").aggregate("ORDER", "O-big")
                    .eventType("ORDER_CREATED").channel("MQ").payload(payload).build());
        });
        assertThat(count("app_order")).isEqualTo(1);
        assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE event_no = 'E-big'")).isEqualTo(1);
    }

    @Test
    final void aBatchLargerThanOneStatementIsSplitAndWrittenWhole() throws Exception {
        int payloadBytes = 1024 * 1024;
        Postbox big = newPostbox(b -> b.maxPayloadBytes(payloadBytes));
        String payload = worstCasePayload(payloadBytes);
        long limit = serverLimit();
        int events = limit == Long.MAX_VALUE ? 3 : (int) (limit / payloadBytes) + 2;
        List<OutboxEvent> batch = new ArrayList<>();
        for (int i = 0; i < events; i++) {
            batch.add(OutboxEvent.builder().eventNo("E-" + i).aggregate("ORDER", "O-1").eventType("ORDER_CREATED")
                    .channel("MQ").payload(payload).build());
        }
        List<WriteResult> results = inTx(c -> {
            insertOrder(c, "O-1");
            return big.outbox().writeAll(c, batch);
        });
        assertThat(results).extracting(WriteResult::outcome).containsOnly(WriteResult.Outcome.INSERTED).hasSize(events);
        assertThat(count(postbox.tables().outbox())).isEqualTo(events);
        assertThat(count("app_order")).isEqualTo(1);
    }
}
