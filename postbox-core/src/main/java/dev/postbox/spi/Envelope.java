package dev.postbox.spi;

import dev.postbox.common.ValidationException;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What every transport carries, identical on the consuming side whatever the broker: the event's
 * identity and metadata in the transport's native headers, the payload as the body, unchanged.
 * <p>
 * {@link #toHeaders()} and {@link #fromHeaders(Map, String)} map it to and from flat string headers
 * named {@code postbox-*} ({@link #EVENT_NO}, ...); the event's own headers travel under their own names
 * next to them (an event header named {@code postbox-...} is rejected when the event is written, see
 * {@link #RESERVED_PREFIX}; a {@code traceparent} header becomes {@link #traceparent()}). A transport
 * adds its native equivalents where the broker has them (AMQP {@code message-id}, NATS
 * {@code Nats-Msg-Id}, HTTP {@code Idempotency-Key}: all the event number) and may drop the
 * {@code postbox-} duplicates of those.
 *
 * @param eventNo       the idempotency key of the event ({@code event_no}); consumers deduplicate by it
 * @param traceparent   the W3C trace context the event carries in its own headers, or null
 * @param createTime    when the event was written (its {@code create_time})
 * @param headers       the event's own headers (never null; without {@code traceparent})
 */
public record Envelope(String eventNo, String eventType, int eventVersion, String aggregateType, String aggregateId,
                       String traceId, String traceparent, String source, Instant createTime,
                       Map<String, String> headers, String payload) {

    /** The prefix of every {@code postbox-*} header; the same as {@link OutboxEvent#RESERVED_HEADER_PREFIX}. */
    public static final String RESERVED_PREFIX = OutboxEvent.RESERVED_HEADER_PREFIX;
    public static final String EVENT_NO = "postbox-event-no";
    public static final String EVENT_TYPE = "postbox-event-type";
    public static final String EVENT_VERSION = "postbox-event-version";
    public static final String AGGREGATE_TYPE = "postbox-aggregate-type";
    public static final String AGGREGATE_ID = "postbox-aggregate-id";
    public static final String TRACE_ID = "postbox-trace-id";
    public static final String SOURCE = "postbox-source";
    /** ISO-8601 instant, e.g. {@code 2026-03-08T09:59:59.123Z}. */
    public static final String CREATE_TIME = "postbox-create-time";
    /** W3C Trace Context header, carried under its standard name. */
    public static final String TRACEPARENT = "traceparent";

    public Envelope {
        Objects.requireNonNull(eventNo, "eventNo");
        Objects.requireNonNull(eventType, "eventType");
        Objects.requireNonNull(aggregateType, "aggregateType");
        Objects.requireNonNull(aggregateId, "aggregateId");
        Objects.requireNonNull(payload, "payload");
        headers = headers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    /** The envelope of a claimed outbox event: its {@code traceparent} header, if any, becomes {@link #traceparent()}. */
    public static Envelope of(OutboxRecord r) {
        Map<String, String> own = new LinkedHashMap<>(r.headers() == null ? Map.of() : r.headers());
        String traceparent = own.remove(TRACEPARENT);
        return new Envelope(r.eventNo(), r.eventType(), r.eventVersion(), r.aggregateType(), r.aggregateId(),
                r.traceId(), traceparent, r.source(), r.createTime(), own, r.payload());
    }

    /** Flat string headers: the {@code postbox-*} fields present, {@code traceparent}, then the event's own headers. */
    public Map<String, String> toHeaders() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put(EVENT_NO, eventNo);
        h.put(EVENT_TYPE, eventType);
        h.put(EVENT_VERSION, Integer.toString(eventVersion));
        h.put(AGGREGATE_TYPE, aggregateType);
        h.put(AGGREGATE_ID, aggregateId);
        putIfPresent(h, TRACE_ID, traceId);
        putIfPresent(h, SOURCE, source);
        if (createTime != null) {
            h.put(CREATE_TIME, createTime.toString());
        }
        putIfPresent(h, TRACEPARENT, traceparent);
        headers.forEach(h::putIfAbsent);
        return h;
    }

    /**
     * Reads an envelope back from flat headers and the body. Header names are matched case-insensitively
     * (HTTP and some brokers change the case).
     *
     * @throws ValidationException a required {@code postbox-*} header is missing or malformed, naming it
     */
    public static Envelope fromHeaders(Map<String, String> headers, String payload) {
        Objects.requireNonNull(headers, "headers");
        Map<String, String> byLowerName = new LinkedHashMap<>();
        headers.forEach((k, v) -> byLowerName.put(k.toLowerCase(java.util.Locale.ROOT), v));
        String version = required(byLowerName, EVENT_VERSION);
        int eventVersion;
        try {
            eventVersion = Integer.parseInt(version);
        } catch (NumberFormatException e) {
            throw new ValidationException(EVENT_VERSION, "must be an integer, was '" + version + "'");
        }
        String created = byLowerName.get(CREATE_TIME);
        Instant createTime;
        try {
            createTime = created == null ? null : Instant.parse(created);
        } catch (DateTimeParseException e) {
            throw new ValidationException(CREATE_TIME, "must be an ISO-8601 instant, was '" + created + "'");
        }
        Map<String, String> own = new LinkedHashMap<>();
        headers.forEach((k, v) -> {
            String lower = k.toLowerCase(java.util.Locale.ROOT);
            if (!lower.startsWith(RESERVED_PREFIX) && !lower.equals(TRACEPARENT)) {
                own.put(k, v);
            }
        });
        if (payload == null) {
            throw new ValidationException("payload", "a delivery must have a body");
        }
        return new Envelope(required(byLowerName, EVENT_NO), required(byLowerName, EVENT_TYPE), eventVersion,
                required(byLowerName, AGGREGATE_TYPE), required(byLowerName, AGGREGATE_ID), byLowerName.get(TRACE_ID),
                byLowerName.get(TRACEPARENT), byLowerName.get(SOURCE), createTime, own, payload);
    }

    private static String required(Map<String, String> byLowerName, String name) {
        String v = byLowerName.get(name);
        if (v == null || v.isEmpty()) {
            throw new ValidationException(name, "header is missing: not a Postbox delivery, or a transport dropped it");
        }
        return v;
    }

    private static void putIfPresent(Map<String, String> h, String name, String value) {
        if (value != null) {
            h.put(name, value);
        }
    }
}
