package dev.postbox.examples.orders.order;

/** {@code t_order.status}: CREATED, then CONFIRMED by the inventory consumer or CANCELLED by the timeout job. */
public enum OrderStatus {
    CREATED,
    CONFIRMED,
    CANCELLED
}
