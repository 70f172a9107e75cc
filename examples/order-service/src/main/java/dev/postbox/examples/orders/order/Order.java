package dev.postbox.examples.orders.order;

import java.math.BigDecimal;
import java.time.Instant;

/** One row of {@code t_order}. */
public record Order(String orderNo, String userId, String sku, int quantity, BigDecimal amount, OrderStatus status,
                    long version, Instant createdAt, Instant updatedAt) {
}
