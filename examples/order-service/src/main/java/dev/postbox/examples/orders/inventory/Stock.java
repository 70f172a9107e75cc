package dev.postbox.examples.orders.inventory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import javax.sql.DataSource;
import java.sql.Connection;

/** {@code t_stock} and {@code t_stock_reservation} in plain SQL. */
final class Stock {

    private final JdbcClient jdbc;

    private Stock(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    static Stock of(DataSource dataSource) {
        return new Stock(JdbcClient.create(dataSource));
    }

    static Stock on(Connection connection) {
        return of(new SingleConnectionDataSource(connection, true));
    }

    /** Takes {@code quantity} from the available stock of {@code sku}; false (nothing changed) when there is not enough. */
    boolean reserve(String sku, int quantity) {
        return jdbc.sql("""
                UPDATE t_stock SET available = available - :q, reserved = reserved + :q
                WHERE sku = :sku AND available >= :q""")
                .param("q", quantity).param("sku", sku)
                .update() == 1;
    }

    /** Records the reservation of one order; its unique order_no is the last guard against a second reservation. */
    void recordReservation(String orderNo, String sku, int quantity) {
        jdbc.sql("INSERT INTO t_stock_reservation (order_no, sku, quantity) VALUES (:orderNo, :sku, :q)")
                .param("orderNo", orderNo).param("sku", sku).param("q", quantity)
                .update();
    }
}
