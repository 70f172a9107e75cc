package dev.postbox.examples.orders.order;

import dev.postbox.examples.orders.OrderProperties;
import dev.postbox.outbox.OutboxEvent;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The order's outbox events: ORDER_CREATED, ORDER_CONFIRMED and ORDER_CANCELLED, each with the stable event
 * number {@code <TYPE>:<orderNo>}, and ORDER_NOTE_ADDED ({@code ORDER_NOTE_ADDED:<orderNo>:<noteId>}) (a retried write is a duplicate, never a second event), aggregate
 * ORDER/&lt;orderNo&gt; (published in order per order), on channel {@code order.events.channel}, topic
 * {@code order.events.topic}.
 */
@Component
public class OrderEvents {

    public static final String AGGREGATE = "ORDER";
    public static final String ORDER_CREATED = "ORDER_CREATED";
    public static final String ORDER_CONFIRMED = "ORDER_CONFIRMED";
    public static final String ORDER_CANCELLED = "ORDER_CANCELLED";
    public static final String ORDER_NOTE_ADDED = "ORDER_NOTE_ADDED";

    /** What the inventory consumer reads from an ORDER_CREATED payload. */
    public record Created(String orderNo, String userId, String sku, int quantity, BigDecimal amount) {
    }

    private final ObjectMapper json;
    private final OrderProperties.Events config;

    public OrderEvents(ObjectMapper json, OrderProperties properties) {
        this.json = json;
        this.config = properties.events();
    }

    public OutboxEvent created(Order o) {
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("orderNo", o.orderNo());
        payload.put("userId", o.userId());
        payload.put("sku", o.sku());
        payload.put("quantity", o.quantity());
        payload.put("amount", o.amount().toPlainString());
        return event(ORDER_CREATED, o.orderNo(), payload);
    }

    public OutboxEvent confirmed(String orderNo, String sku, int quantity) {
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("orderNo", orderNo);
        payload.put("sku", sku);
        payload.put("reserved", quantity);
        return event(ORDER_CONFIRMED, orderNo, payload);
    }

    public OutboxEvent cancelled(String orderNo, String reason) {
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("orderNo", orderNo);
        payload.put("reason", reason);
        return event(ORDER_CANCELLED, orderNo, payload);
    }

    /** A customer's note on the order (e.g. a delivery instruction); {@code noteId} makes each note an event of its own. */
    public OutboxEvent noteAdded(String orderNo, String noteId, String text) {
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("orderNo", orderNo);
        payload.put("noteId", noteId);
        payload.put("text", text);
        return event(ORDER_NOTE_ADDED, orderNo + ":" + noteId, orderNo, payload);
    }

    /** Reads an ORDER_CREATED payload. */
    public Created readCreated(String payload) {
        JsonNode n = json.readTree(payload);
        return new Created(n.required("orderNo").asString(), n.path("userId").asString(null),
                n.required("sku").asString(), n.required("quantity").asInt(), new BigDecimal(n.required("amount").asString()));
    }

    private OutboxEvent event(String type, String orderNo, Map<String, Object> payload) {
        return event(type, orderNo, orderNo, payload);
    }

    private OutboxEvent event(String type, String key, String orderNo, Map<String, Object> payload) {
        return OutboxEvent.builder()
                .eventNo(type + ":" + key)
                .maxRetries(config.maxRetries())
                .aggregate(AGGREGATE, orderNo)
                .eventType(type)
                .channel(config.channel())
                .topic(config.topic())
                .routingKey(type.toLowerCase(java.util.Locale.ROOT).replace('_', '.'))
                .payload(json.writeValueAsString(payload))
                .build();
    }
}
