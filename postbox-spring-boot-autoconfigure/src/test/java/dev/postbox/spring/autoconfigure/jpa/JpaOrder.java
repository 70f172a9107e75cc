package dev.postbox.spring.autoconfigure.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A business entity written with JPA next to the outbox event. */
@Entity
@Table(name = "jpa_order")
public class JpaOrder {

    @Id
    private String orderNo;

    private String status;

    protected JpaOrder() {
    }

    public JpaOrder(String orderNo, String status) {
        this.orderNo = orderNo;
        this.status = status;
    }

    public String getOrderNo() {
        return orderNo;
    }

    public String getStatus() {
        return status;
    }
}
