package dev.postbox.examples.plain;

import dev.postbox.Postbox;
import dev.postbox.message.FailOutcome;
import dev.postbox.message.MessageEvent;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.WriteResult;
import dev.postbox.query.MessageQueries;
import dev.postbox.query.OutboxQueries;
import dev.postbox.query.PageRequest;
import org.h2.jdbcx.JdbcDataSource;

import javax.sql.DataSource;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * Postbox on plain JDBC and an in-memory H2 database, no framework. Demonstrates, in order:
 * <ol>
 *   <li>installing the Postbox tables next to the application's own {@code shop_order} table;</li>
 *   <li>placing an order: the order row, its {@code ORDER_CREATED} outbox event and a
 *       {@code SEND_ORDER_SMS} message event written in <em>one</em> local transaction;</li>
 *   <li>a second write with the same {@code event_no} reported as DUPLICATE, changing nothing;</li>
 *   <li>a rolled-back transaction leaving neither the order nor its event behind;</li>
 *   <li>a message event claimed by a worker and failed, so that a retry is scheduled;</li>
 *   <li>seed 000's queries ({@code postbox.queries()}) on both event tables.</li>
 * </ol>
 * Run it with {@code scripts/demo}, or {@code java -jar target/postbox-example-plain-java.jar}.
 */
public final class PlainJavaExample {

    private static final String URL = "jdbc:h2:mem:postbox-example;DB_CLOSE_DELAY=-1";
    private static final PageRequest FIRST_100 = PageRequest.first(100);

    private final DataSource dataSource;
    private final Postbox postbox;
    private final Report report;

    private PlainJavaExample(DataSource dataSource, PrintStream out) {
        this.dataSource = dataSource;
        this.postbox = Postbox.builder(dataSource).source("order-service").build();
        this.report = new Report(out);
    }

    public static void main(String[] args) throws SQLException {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(URL);
        h2.setUser("sa");
        run(h2, System.out);
    }

    /** Runs the whole walk-through on {@code dataSource} (an empty H2 database), printing to {@code out}. */
    public static void run(DataSource dataSource, PrintStream out) throws SQLException {
        PlainJavaExample example = new PlainJavaExample(dataSource, out);
        Instant started = Instant.now();
        example.install();
        long smsId = example.placeOrders();
        example.writeDuplicate("ORDER-1001");
        example.rollBack("ORDER-1003");
        example.failMessage(smsId);
        example.queries(started.minusSeconds(60), Instant.now().plusSeconds(60));
    }

    private void install() throws SQLException {
        postbox.schema().install();
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE shop_order (order_no VARCHAR(64) PRIMARY KEY, user_id VARCHAR(64),"
                    + " amount DECIMAL(18,2), status VARCHAR(16))");
        }
        report.heading("1. Postbox schema installed (" + postbox.dialect().name() + "), table shop_order created");
    }

    /** Places two orders; returns the id of the first order's SMS message event. */
    private long placeOrders() throws SQLException {
        report.heading("2. Place orders: order row + ORDER_CREATED outbox event + SEND_ORDER_SMS message event, one transaction each");
        long smsId = 0;
        for (String orderNo : new String[] {"ORDER-1001", "ORDER-1002"}) {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                long id = placeOrder(c, orderNo, "user-42", new BigDecimal("99.90"));
                c.commit();
                report.line("committed " + orderNo);
                smsId = smsId == 0 ? id : smsId;
            }
        }
        return smsId;
    }

    /** The business change and its events in the caller's transaction; returns the message event's id. */
    private long placeOrder(Connection c, String orderNo, String userId, BigDecimal amount) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO shop_order (order_no, user_id, amount, status) VALUES (?, ?, ?, 'CREATED')")) {
            ps.setString(1, orderNo);
            ps.setString(2, userId);
            ps.setBigDecimal(3, amount);
            ps.executeUpdate();
        }
        WriteResult event = postbox.outbox().write(c, orderCreated(orderNo, userId, amount));
        report.result("outbox ", event);
        WriteResult sms = postbox.messages().create(c, MessageEvent.builder()
                .eventNo("SEND_ORDER_SMS:" + orderNo)
                .eventType("SEND_ORDER_SMS")
                .biz("ORDER", orderNo)
                .payload("{\"orderNo\":\"%s\",\"userId\":\"%s\"}".formatted(orderNo, userId))
                .traceId(traceId(orderNo))
                .build());
        report.result("message", sms);
        return sms.id();
    }

    private static OutboxEvent orderCreated(String orderNo, String userId, BigDecimal amount) {
        return OutboxEvent.builder()
                .eventNo("ORDER_CREATED:" + orderNo)
                .aggregate("ORDER", orderNo)
                .eventType("ORDER_CREATED")
                .channel("MQ").topic("order.event").routingKey("order.created")
                .payload("{\"orderNo\":\"%s\",\"userId\":\"%s\",\"amount\":%s,\"status\":\"CREATED\"}"
                        .formatted(orderNo, userId, amount.toPlainString()))
                .header("tenantId", "t1")
                .traceId(traceId(orderNo))
                .build();
    }

    private static String traceId(String orderNo) {
        return "trace-" + orderNo;
    }

    private void writeDuplicate(String orderNo) throws SQLException {
        String eventNo = "ORDER_CREATED:" + orderNo;
        report.heading("3. Write " + eventNo + " again, in a new transaction and with another amount");
        OutboxRecord before = postbox.queries().outbox().byEventNo(eventNo).orElseThrow();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            report.result("outbox ", postbox.outbox().write(c, orderCreated(orderNo, "user-42", new BigDecimal("1.00"))));
            c.commit();
        }
        OutboxRecord after = postbox.queries().outbox().byEventNo(eventNo).orElseThrow();
        report.line("stored row unchanged: " + before.equals(after) + " (payload " + after.payload() + ")");
    }

    private void rollBack(String orderNo) throws SQLException {
        report.heading("4. Place order " + orderNo + ", then roll the transaction back");
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            placeOrder(c, orderNo, "user-7", new BigDecimal("10.00"));
            c.rollback();
        }
        Optional<OutboxRecord> event = postbox.queries().outbox().byEventNo("ORDER_CREATED:" + orderNo);
        report.line("after rollback: order " + orderNo + " present: " + orderExists(orderNo)
                + ", outbox event present: " + event.isPresent());
    }

    private boolean orderExists(String orderNo) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT 1 FROM shop_order WHERE order_no = ?")) {
            ps.setString(1, orderNo);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** What a message worker does when the SMS gateway is down: claim, try, record the failure. */
    private void failMessage(long id) throws SQLException {
        report.heading("5. A worker claims SEND_ORDER_SMS:ORDER-1001 (id " + id + ") and fails");
        try (Connection c = dataSource.getConnection()) { // auto-commit: each step is one conditional UPDATE
            boolean claimed = postbox.messages().claim(c, id);
            // Retry at once (Duration.ZERO) so that the due-retries query below has something to show.
            FailOutcome outcome = postbox.messages().fail(c, id, "SMS gateway timeout", Duration.ZERO);
            report.line("claim -> " + claimed + ", fail -> " + outcome);
        }
    }

    private void queries(Instant from, Instant to) {
        String range = "[" + from.truncatedTo(ChronoUnit.SECONDS) + ", " + to.truncatedTo(ChronoUnit.SECONDS) + ")";
        OutboxQueries outbox = postbox.queries().outbox();
        report.heading("6. Seed 000's queries, outbox (biz_outbox_event)");
        report.outbox("pending", outbox.pending(FIRST_100));
        report.outbox("by aggregate ORDER/ORDER-1001", outbox.byAggregate("ORDER", "ORDER-1001", FIRST_100));
        report.outbox("by event_no ORDER_CREATED:ORDER-1002", outbox.byEventNo("ORDER_CREATED:ORDER-1002").stream().toList());
        report.outbox("by trace id trace-ORDER-1001", outbox.byTraceId("trace-ORDER-1001", FIRST_100));
        report.counts("count by status, ORDER_CREATED created in " + range, outbox.countByStatus("ORDER_CREATED", from, to));
        // Outbox failures are recorded by the relay, which this example does not run: these two stay empty.
        report.outbox("failed, topic order.event (failures come from the relay, not run here)",
                outbox.failedByTopic("order.event", FIRST_100));
        report.outbox("most retried (failed or dead, retries >= 1)", outbox.mostRetried(1, FIRST_100));

        MessageQueries messages = postbox.queries().messages();
        report.heading("7. Seed 000's queries, message events (biz_message_event)");
        report.messages("pending", messages.pending(FIRST_100));
        report.messages("due retries", messages.dueRetries(FIRST_100));
        report.messages("by biz ORDER/ORDER-1001", messages.byBiz("ORDER", "ORDER-1001", FIRST_100));
        report.counts("count by status, SEND_ORDER_SMS created in " + range, messages.countByStatus("SEND_ORDER_SMS", from, to));
        report.messages("most retried (failed or dead, retries >= 1)", messages.mostRetried(1, FIRST_100));
    }
}
