package dev.postbox.test.spring.shop;

import dev.postbox.Postbox;
import dev.postbox.message.MessageEvent;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.spring.TransactionalOutbox;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import javax.sql.DataSource;
import java.sql.Timestamp;
import java.time.Clock;

/** Places orders: the order row, its two events and a receipt to send, in one transaction. */
@Service
public class OrderService {

    private final JdbcTemplate jdbc;
    private final TransactionalOutbox outbox;
    private final Postbox postbox;
    private final DataSource dataSource;
    private final Clock clock;

    public OrderService(JdbcTemplate jdbc, TransactionalOutbox outbox, Postbox postbox, DataSource dataSource, Clock clock) {
        this.jdbc = jdbc;
        this.outbox = outbox;
        this.postbox = postbox;
        this.dataSource = dataSource;
        this.clock = clock;
    }

    @Transactional
    public void place(String orderNo, String sku) {
        jdbc.update("INSERT INTO shop_order (order_no, sku, created_at) VALUES (?, ?, ?)", orderNo, sku,
                Timestamp.from(clock.instant()));
        outbox.write(OutboxEvent.builder().eventNo("ORDER_CREATED:" + orderNo).aggregate("ORDER", orderNo)
                .eventType("ORDER_CREATED").channel("EVENT_BUS").topic("order.created")
                .payload("{\"orderNo\":\"" + orderNo + "\",\"sku\":\"" + sku + "\"}").header("tenant", "t1").build());
        outbox.write(OutboxEvent.builder().eventNo("ORDER_AUDIT:" + orderNo).aggregate("ORDER", orderNo)
                .eventType("ORDER_AUDIT").channel("MQ").topic("audit").payload("{}").build());
        postbox.messages().create(DataSourceUtils.getConnection(dataSource), MessageEvent.builder()
                .eventNo("RECEIPT:" + orderNo).eventType("SEND_RECEIPT").biz("ORDER", orderNo)
                .payload("{\"orderNo\":\"" + orderNo + "\"}").build());
    }

    /** Places an order and fails afterwards: its transaction rolls back, its events with it. */
    @Transactional
    public void placeAndFail(String orderNo, String sku) {
        place(orderNo, sku);
        throw new IllegalStateException("payment refused for " + orderNo);
    }
}
