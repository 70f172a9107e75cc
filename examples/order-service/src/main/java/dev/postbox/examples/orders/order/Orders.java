package dev.postbox.examples.orders.order;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;

/**
 * {@code t_order} in plain SQL. Every status change is a conditional UPDATE whose row count says whether it
 * happened, so the consumer and the compensation job can race on an order and only one of them wins.
 */
public final class Orders {

    private final JdbcClient jdbc;

    private Orders(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** On {@code dataSource}, joining the current Spring transaction when there is one. */
    public static Orders of(DataSource dataSource) {
        return new Orders(JdbcClient.create(dataSource));
    }

    /** On one connection the caller owns (a compensation job's or a transport consumer's transaction). */
    public static Orders on(Connection connection) {
        return of(new SingleConnectionDataSource(connection, true));
    }

    public void insert(Order o) {
        jdbc.sql("""
                INSERT INTO t_order (order_no, user_id, sku, quantity, amount, status, version, created_at, updated_at)
                VALUES (:orderNo, :userId, :sku, :quantity, :amount, :status, 0, :createdAt, :createdAt)""")
                .param("orderNo", o.orderNo()).param("userId", o.userId()).param("sku", o.sku())
                .param("quantity", o.quantity()).param("amount", o.amount()).param("status", o.status().name())
                .param("createdAt", utc(o.createdAt()))
                .update();
    }

    public Optional<Order> find(String orderNo) {
        return jdbc.sql("""
                SELECT order_no, user_id, sku, quantity, amount, status, version, created_at, updated_at
                FROM t_order WHERE order_no = :orderNo""")
                .param("orderNo", orderNo)
                .query((rs, n) -> new Order(rs.getString("order_no"), rs.getString("user_id"), rs.getString("sku"),
                        rs.getInt("quantity"), rs.getBigDecimal("amount"), OrderStatus.valueOf(rs.getString("status")),
                        rs.getLong("version"), rs.getObject("created_at", OffsetDateTime.class).toInstant(),
                        rs.getObject("updated_at", OffsetDateTime.class).toInstant()))
                .optional();
    }

    /** Locks the order's row for the rest of the transaction and returns its status; empty if there is no such order. */
    public Optional<OrderStatus> lockStatus(String orderNo) {
        return jdbc.sql("SELECT status FROM t_order WHERE order_no = :orderNo FOR UPDATE")
                .param("orderNo", orderNo)
                .query((rs, n) -> OrderStatus.valueOf(rs.getString(1)))
                .optional();
    }

    /** Moves the order from {@code from} to {@code to}; false when it was not in {@code from} (someone else won). */
    public boolean transition(String orderNo, OrderStatus from, OrderStatus to, Instant now) {
        return jdbc.sql("""
                UPDATE t_order SET status = :to, version = version + 1, updated_at = :now
                WHERE order_no = :orderNo AND status = :from""")
                .param("to", to.name()).param("now", utc(now)).param("orderNo", orderNo).param("from", from.name())
                .update() == 1;
    }

    static OffsetDateTime utc(Instant instant) {
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }
}
