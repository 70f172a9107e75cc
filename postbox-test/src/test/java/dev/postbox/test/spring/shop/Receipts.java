package dev.postbox.test.spring.shop;

import dev.postbox.message.MessageRecord;
import dev.postbox.spring.PostboxMessageHandler;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/** Sends receipts: a message-event handler run by the starter's worker. */
@Component
public class Receipts {

    private final JdbcTemplate jdbc;

    public Receipts(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @PostboxMessageHandler("SEND_RECEIPT")
    void send(MessageRecord event) {
        jdbc.update("INSERT INTO receipt (order_no) VALUES (?)", event.bizId());
    }
}
