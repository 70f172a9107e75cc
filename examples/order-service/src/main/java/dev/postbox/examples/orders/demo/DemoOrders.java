package dev.postbox.examples.orders.demo;

import dev.postbox.examples.orders.OrderProperties;
import dev.postbox.examples.orders.order.OrderService;
import dev.postbox.examples.orders.order.PlaceOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

import java.math.BigDecimal;

/**
 * Places {@code order.demo.seed-orders} orders (SKU-1 .. SKU-5 in turn, user {@code demo}) at start-up, so the
 * console's overview and search show traffic from the first minute. Default none.
 */
@Component
public class DemoOrders implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(DemoOrders.class);

    private final OrderService orders;
    private final int count;

    public DemoOrders(OrderService orders, OrderProperties properties) {
        this.orders = orders;
        this.count = properties.demo().seedOrders();
    }

    @Override
    public void run(ApplicationArguments args) {
        for (int i = 0; i < count; i++) {
            orders.place(new PlaceOrder("demo", "SKU-" + (i % 5 + 1), 1 + i % 3, new BigDecimal("19.90")));
        }
        if (count > 0) {
            log.info("Demo: {} orders placed", count);
        }
    }
}
