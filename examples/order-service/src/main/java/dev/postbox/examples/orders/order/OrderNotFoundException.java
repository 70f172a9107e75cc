package dev.postbox.examples.orders.order;

/** No order has this number; answered with 404. */
public class OrderNotFoundException extends RuntimeException {

    private final String orderNo;

    public OrderNotFoundException(String orderNo) {
        super("order " + orderNo + " not found");
        this.orderNo = orderNo;
    }

    public String orderNo() {
        return orderNo;
    }
}
