package dev.postbox.tracing;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One span Postbox asks its {@link PostboxTracing} for, with its name and attributes already in the form of the
 * OpenTelemetry messaging conventions, so that every binding reports the same spans.
 *
 * @param operation     what is traced
 * @param system        {@code messaging.system}: kafka, rabbitmq, nats, http, postbox (the outbox itself and the
 *                      in-process bus); never null
 * @param destination   {@code messaging.destination.name} (topic, exchange, subject, endpoint, channel), or null
 *                      when a batch goes to several
 * @param messageId     {@code messaging.message.id}: the event number, or null for a batch
 * @param messageKey    the aggregate id, reported as {@code messaging.kafka.message.key} to Kafka, else null
 * @param batchSize     {@code messaging.batch.message_count} when above 1
 * @param consumerGroup {@code messaging.consumer.group.name} of a process span, or null
 * @param parent        W3C headers of the parent context (the event's creation context), or null: the
 *                      thread's current context is the parent
 * @param links         W3C headers of the contexts to link to (a send span: each event's creation context)
 * @param extra         further attributes ({@code postbox.*}), never null
 */
public record SpanRequest(Operation operation, String system, String destination, String messageId,
                          String messageKey, int batchSize, String consumerGroup, Map<String, String> parent,
                          List<Map<String, String>> links, Map<String, String> extra) {

    /** The kinds of span Postbox starts, as {@code messaging.operation.type} and the span kind. */
    public enum Operation {
        /** An event written to the outbox (or the message-event table): a PRODUCER span. */
        CREATE("create", Kind.PRODUCER),
        /** The relay handing a batch to a transport: a PRODUCER span. */
        SEND("send", Kind.PRODUCER),
        /** A consumer, the message-event worker or a compensation handling one event or key: a CONSUMER span. */
        PROCESS("process", Kind.CONSUMER);

        private final String type;
        private final Kind kind;

        Operation(String type, Kind kind) {
            this.type = type;
            this.kind = kind;
        }

        /** {@code messaging.operation.type}. */
        public String type() {
            return type;
        }

        public Kind kind() {
            return kind;
        }
    }

    /** The OpenTelemetry span kind. */
    public enum Kind { PRODUCER, CONSUMER }

    /** The system name of the outbox and message-event tables and of the in-process bus. */
    public static final String POSTBOX_SYSTEM = "postbox";

    public SpanRequest {
        Objects.requireNonNull(operation, "operation");
        system = system == null ? POSTBOX_SYSTEM : system;
        links = links == null ? List.of() : List.copyOf(links);
        extra = extra == null ? Map.of() : Map.copyOf(extra);
    }

    /** The create span of one event about to be written to {@code destination}. */
    public static SpanRequest create(String destination, String messageId, String messageKey, Map<String, String> extra) {
        return new SpanRequest(Operation.CREATE, POSTBOX_SYSTEM, destination, messageId, messageKey, 1, null, null,
                List.of(), extra);
    }

    /** The send span of a batch, linked to each event's creation context ({@code links}, one per event). */
    public static SpanRequest send(String system, String destination, String messageId, String messageKey,
                                   List<Map<String, String>> links, Map<String, String> extra) {
        return new SpanRequest(Operation.SEND, system, destination, messageId, messageKey, links.size(), null, null,
                links, extra);
    }

    /** The process span of one delivery, the child of the creation context in {@code parent}. */
    public static SpanRequest process(String system, String destination, String messageId, String messageKey,
                                      String consumerGroup, Map<String, String> parent, Map<String, String> extra) {
        return new SpanRequest(Operation.PROCESS, system, destination, messageId, messageKey, 1, consumerGroup, parent,
                List.of(), extra);
    }

    /**
     * The value of header {@code name} in {@code carrier}, matched exactly, else ignoring case (brokers and HTTP may
     * change it); null when absent. For bindings reading {@link #parent()} and {@link #links()}.
     */
    public static String header(Map<String, String> carrier, String name) {
        if (carrier == null) {
            return null;
        }
        String v = carrier.get(name);
        if (v != null) {
            return v;
        }
        for (Map.Entry<String, String> e : carrier.entrySet()) {
            if (e.getKey().equalsIgnoreCase(name)) {
                return e.getValue();
            }
        }
        return null;
    }

    /** {@code "{operation} {destination}"}, or the operation alone when the destination is not one name. */
    public String name() {
        return destination == null || destination.isEmpty() ? operation.type() : operation.type() + " " + destination;
    }

    /** The span's attributes by the messaging conventions, then {@link #extra()}; long values for counts. */
    public Map<String, Object> attributes() {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("messaging.system", system);
        a.put("messaging.operation.type", operation.type());
        a.put("messaging.operation.name", operation.type());
        if (destination != null) {
            a.put("messaging.destination.name", destination);
        }
        if (messageId != null) {
            a.put("messaging.message.id", messageId);
        }
        if (messageKey != null && "kafka".equals(system)) {
            a.put("messaging.kafka.message.key", messageKey);
        }
        if (batchSize > 1) {
            a.put("messaging.batch.message_count", (long) batchSize);
        }
        if (consumerGroup != null) {
            a.put("messaging.consumer.group.name", consumerGroup);
        }
        a.putAll(extra);
        return a;
    }
}
