package dev.postbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BasicProperties;
import com.rabbitmq.client.LongString;
import dev.postbox.common.ValidationException;
import dev.postbox.spi.Envelope;

import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The {@link Envelope} in AMQP 0-9-1 message properties and back. Every {@code postbox-*} header of
 * {@link Envelope#toHeaders()}, {@code traceparent} and the event's own headers travel as string headers
 * (AMQP {@code longstr}); the standard properties carry their native equivalents: {@code message-id} =
 * event_no, {@code type} = event_type, {@code app-id} = source, {@code correlation-id} = trace id,
 * {@code timestamp} = create time (whole seconds), {@code delivery-mode} 2 (persistent) and
 * {@code content-type} {@code application/json}. The body is the payload, UTF-8, unchanged.
 * <p>
 * Reading prefers the headers and falls back to the properties, so a message that carries only
 * {@code message-id} and {@code type} still names its event. Headers the broker adds when it
 * dead-letters or counts deliveries ({@code x-death}, {@code x-first-death-*}, ...) are not part of the
 * event's own headers. Stateless and thread-safe.
 */
public final class AmqpEnvelopes {

    private static final Set<String> BROKER_HEADERS = Set.of("x-death", "x-first-death-exchange",
            "x-first-death-queue", "x-first-death-reason", "x-last-death-exchange", "x-last-death-queue",
            "x-last-death-reason", "x-delivery-count", "x-received-from");

    private AmqpEnvelopes() {
    }

    /** The properties of the message that carries {@code envelope}. */
    public static AMQP.BasicProperties properties(Envelope envelope) {
        Map<String, Object> headers = new LinkedHashMap<>(envelope.toHeaders());
        return new AMQP.BasicProperties.Builder()
                .contentType(RabbitDefaults.CONTENT_TYPE)
                .deliveryMode(2)
                .messageId(envelope.eventNo())
                .type(envelope.eventType())
                .appId(envelope.source())
                .correlationId(envelope.traceId())
                .timestamp(envelope.createTime() == null ? null : Date.from(envelope.createTime()))
                .headers(headers)
                .build();
    }

    /** The body of the message that carries {@code envelope}. */
    public static byte[] body(Envelope envelope) {
        return envelope.payload().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Reads the envelope of a delivery.
     *
     * @throws ValidationException not a Postbox envelope: names the missing or malformed header
     */
    public static Envelope envelope(BasicProperties properties, byte[] body) {
        Map<String, String> headers = new LinkedHashMap<>();
        Set<String> lowerNames = new HashSet<>();
        Map<String, Object> raw = properties.getHeaders();
        if (raw != null) {
            raw.forEach((name, value) -> {
                String lower = name.toLowerCase(Locale.ROOT);
                if (value != null && !BROKER_HEADERS.contains(lower)) {
                    headers.put(name, text(value));
                    lowerNames.add(lower);
                }
            });
        }
        fallback(headers, lowerNames, Envelope.EVENT_NO, properties.getMessageId());
        fallback(headers, lowerNames, Envelope.EVENT_TYPE, properties.getType());
        fallback(headers, lowerNames, Envelope.SOURCE, properties.getAppId());
        fallback(headers, lowerNames, Envelope.TRACE_ID, properties.getCorrelationId());
        if (properties.getTimestamp() != null) {
            fallback(headers, lowerNames, Envelope.CREATE_TIME, properties.getTimestamp().toInstant().toString());
        }
        return Envelope.fromHeaders(headers, body == null ? null : new String(body, StandardCharsets.UTF_8));
    }

    private static void fallback(Map<String, String> headers, Set<String> lowerNames, String name, String value) {
        if (value != null && lowerNames.add(name)) {
            headers.put(name, value);
        }
    }

    private static String text(Object value) {
        if (value instanceof LongString s) {
            return s.toString();
        }
        if (value instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        return String.valueOf(value);
    }
}
