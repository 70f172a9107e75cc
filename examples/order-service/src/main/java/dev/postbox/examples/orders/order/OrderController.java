package dev.postbox.examples.orders.order;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.postbox.outbox.OutboxRecord;
import jakarta.validation.Valid;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;
import java.time.Instant;
import java.util.List;

/** {@code POST /orders} and {@code GET /orders/{orderNo}}. */
@RestController
@RequestMapping("/orders")
public class OrderController {

    private final OrderService service;

    public OrderController(OrderService service) {
        this.service = service;
    }

    /** 201 with the new order's number; 400 with field errors (nothing written) for a bad body. */
    @PostMapping
    public ResponseEntity<Placed> place(@Valid @RequestBody PlaceOrder request) {
        Order order = service.place(request);
        return ResponseEntity.created(URI.create("/orders/" + order.orderNo()))
                .body(new Placed(order.orderNo(), order.status().name()));
    }

    /** 201 with the note's event number; 404 for an unknown order, 400 for a blank or long text. */
    @PostMapping("/{orderNo}/notes")
    public ResponseEntity<NoteAdded> addNote(@PathVariable String orderNo, @Valid @RequestBody AddNote request) {
        return ResponseEntity.status(201).body(new NoteAdded(service.addNote(orderNo, request.text())));
    }

    /** A customer's note: 1..500 characters. */
    public record AddNote(@jakarta.validation.constraints.NotBlank @jakarta.validation.constraints.Size(max = 500) String text) {
    }

    /** The answer to an added note. */
    public record NoteAdded(String eventNo) {
    }

    /** The order with its outbox events; 404 for an unknown order. */
    @GetMapping("/{orderNo}")
    public OrderView get(@PathVariable String orderNo) {
        OrderService.OrderDetails d = service.details(orderNo);
        Order o = d.order();
        return new OrderView(o.orderNo(), o.userId(), o.sku(), o.quantity(), o.amount().toPlainString(),
                o.status().name(), text(o.createdAt()), d.events().stream().map(OrderController::event).toList());
    }

    private static EventView event(OutboxRecord r) {
        return new EventView(r.eventNo(), r.eventType(), r.status().name(), r.retryCount(), r.failReason(),
                text(r.createTime()), text(r.publishedTime()));
    }

    private static String text(Instant instant) {
        return instant == null ? null : instant.toString();
    }

    /** The answer to a placed order. */
    public record Placed(String orderNo, String status) {
    }

    /** An order as {@code GET /orders/{orderNo}} shows it. */
    public record OrderView(String orderNo, String userId, String sku, int quantity, String amount, String status,
                            String createdAt, List<EventView> events) {
    }

    /**
     * One outbox event of the order; {@code attempts} is the number of failed publication attempts so far,
     * {@code publishedAt} is present once the event is PUBLISHED.
     */
    public record EventView(String eventNo, String eventType, String status, int attempts, String failReason,
                            String createdAt, @JsonInclude(JsonInclude.Include.NON_NULL) String publishedAt) {
    }
}
