package dev.postbox.outbox;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * An event to write to the outbox, as seed 000's {@code biz_outbox_event} describes it. Immutable;
 * built with {@link #builder()}. Fields are checked when the event is written, not when it is built,
 * so that one place ({@link Outbox#write}) reports every problem before any SQL.
 *
 * <p>Text: lengths are in characters as the database's column counts them (code points on PostgreSQL and
 * MySQL/MariaDB, so an emoji counts 1; UTF-16 code units on H2, an emoji counts 2). No text may hold a
 * NUL or an unpaired surrogate (half an emoji). Keys ({@code eventNo}, {@code aggregateType},
 * {@code aggregateId}, {@code eventType}, {@code source}, {@code channel}) must not start or end with
 * whitespace, which MySQL/MariaDB would ignore when comparing. Everything else, control characters and
 * edge spaces included, is stored and read back exactly.
 *
 * @param eventNo       idempotency key, at most 64 characters; generated (a random UUID) when null.
 *                      Use a stable one such as {@code ORDER_CREATED:{orderId}} to make retries harmless
 * @param aggregateType required, at most 64, e.g. {@code ORDER}
 * @param aggregateId   required, at most 64; events of one aggregate are published in write order
 * @param eventType     required, at most 64, e.g. {@code ORDER_CREATED}
 * @param eventVersion  schema version of the payload, 1..{@value Integer#MAX_VALUE}; default 1
 * @param source        producing service, at most 64; defaults to the Postbox builder's source
 * @param channel       required, at most 32: {@code MQ}, {@code HTTP}, {@code EVENT_BUS}, ...
 * @param topic         optional, at most 128: topic, exchange or subject
 * @param routingKey    optional, at most 128
 * @param payload       required JSON value, at most the configured payload limit in UTF-8 bytes
 * @param headers       string headers (tenantId, ...), stored as a JSON object; never null; no name may start
 *                      with {@link #RESERVED_HEADER_PREFIX}
 * @param maxRetries    retries after the first attempt, 0..1000; null means the default (5)
 * @param traceId       optional, at most 128
 * @param remark        optional, at most 500
 */
public record OutboxEvent(String eventNo, String aggregateType, String aggregateId, String eventType,
                          int eventVersion, String source, String channel, String topic, String routingKey,
                          String payload, Map<String, String> headers, Integer maxRetries, String traceId,
                          String remark) {

    /**
     * Header names starting with this (in any case) are refused when an event is written: the transports
     * carry the event's identity under them ({@code postbox-event-no}, ...), next to the event's own headers.
     */
    public static final String RESERVED_HEADER_PREFIX = "postbox-";

    public OutboxEvent {
        headers = headers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    /** A builder with {@code eventVersion = 1} and no headers. */
    public static Builder builder() {
        return new Builder();
    }

    /** Fluent builder; not thread-safe. */
    public static final class Builder {
        private String eventNo;
        private String aggregateType;
        private String aggregateId;
        private String eventType;
        private int eventVersion = dev.postbox.common.PostboxDefaults.EVENT_VERSION;
        private String source;
        private String channel;
        private String topic;
        private String routingKey;
        private String payload;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private Integer maxRetries;
        private String traceId;
        private String remark;

        private Builder() {
        }

        /** Idempotency key; default: a random UUID. */
        public Builder eventNo(String eventNo) {
            this.eventNo = eventNo;
            return this;
        }

        /** Aggregate type and id together, e.g. {@code aggregate("ORDER", orderNo)}. */
        public Builder aggregate(String type, String id) {
            this.aggregateType = type;
            this.aggregateId = id;
            return this;
        }

        public Builder aggregateType(String aggregateType) {
            this.aggregateType = aggregateType;
            return this;
        }

        public Builder aggregateId(String aggregateId) {
            this.aggregateId = aggregateId;
            return this;
        }

        public Builder eventType(String eventType) {
            this.eventType = eventType;
            return this;
        }

        /** Payload schema version, default 1. */
        public Builder eventVersion(int eventVersion) {
            this.eventVersion = eventVersion;
            return this;
        }

        /** Producing service; default: the Postbox builder's {@code source}. */
        public Builder source(String source) {
            this.source = source;
            return this;
        }

        public Builder channel(String channel) {
            this.channel = channel;
            return this;
        }

        public Builder topic(String topic) {
            this.topic = topic;
            return this;
        }

        public Builder routingKey(String routingKey) {
            this.routingKey = routingKey;
            return this;
        }

        /** The event body as JSON text; stored and delivered verbatim. */
        public Builder payload(String json) {
            this.payload = json;
            return this;
        }

        /** Adds one header; a later call with the same name replaces the value. */
        public Builder header(String name, String value) {
            this.headers.put(Objects.requireNonNull(name, "header name"), value);
            return this;
        }

        /** Adds all headers of {@code headers}. */
        public Builder headers(Map<String, String> headers) {
            headers.forEach(this::header);
            return this;
        }

        /** Retries after the first attempt; default {@value dev.postbox.common.PostboxDefaults#OUTBOX_MAX_RETRIES}. */
        public Builder maxRetries(int maxRetries) {
            this.maxRetries = maxRetries;
            return this;
        }

        public Builder traceId(String traceId) {
            this.traceId = traceId;
            return this;
        }

        public Builder remark(String remark) {
            this.remark = remark;
            return this;
        }

        public OutboxEvent build() {
            return new OutboxEvent(eventNo, aggregateType, aggregateId, eventType, eventVersion, source, channel,
                    topic, routingKey, payload, headers, maxRetries, traceId, remark);
        }
    }
}
