package dev.postbox.message;

/**
 * A message event to create in {@code biz_message_event} (seed 000): internal asynchronous work tied to
 * a business object. Immutable; built with {@link #builder()}; checked when created.
 *
 * <p>Text rules as for {@link dev.postbox.outbox.OutboxEvent}: lengths as the column counts them, no NUL
 * or unpaired surrogate; the keys ({@code eventNo}, {@code eventType}, {@code bizType}, {@code bizId},
 * {@code source}) neither start nor end with whitespace.
 *
 * @param eventNo    idempotency key, at most 64 characters; a random UUID when null
 * @param eventType  required, at most 64, e.g. {@code ORDER_CREATED}
 * @param bizType    required, at most 64, e.g. {@code ORDER}
 * @param bizId      required, at most 64
 * @param source     at most 64; defaults to the Postbox builder's source
 * @param payload    required JSON value, at most the configured payload limit in UTF-8 bytes
 * @param maxRetries retries after the first attempt, 0..1000; null means the default (3)
 * @param traceId    optional, at most 128
 * @param remark     optional, at most 500
 */
public record MessageEvent(String eventNo, String eventType, String bizType, String bizId, String source,
                           String payload, Integer maxRetries, String traceId, String remark) {

    public static Builder builder() {
        return new Builder();
    }

    /** Fluent builder; not thread-safe. */
    public static final class Builder {
        private String eventNo;
        private String eventType;
        private String bizType;
        private String bizId;
        private String source;
        private String payload;
        private Integer maxRetries;
        private String traceId;
        private String remark;

        private Builder() {
        }

        public Builder eventNo(String eventNo) {
            this.eventNo = eventNo;
            return this;
        }

        public Builder eventType(String eventType) {
            this.eventType = eventType;
            return this;
        }

        /** Business type and id together, e.g. {@code biz("ORDER", orderNo)}. */
        public Builder biz(String type, String id) {
            this.bizType = type;
            this.bizId = id;
            return this;
        }

        public Builder source(String source) {
            this.source = source;
            return this;
        }

        public Builder payload(String json) {
            this.payload = json;
            return this;
        }

        /** Retries after the first attempt; default {@value dev.postbox.common.PostboxDefaults#MESSAGE_MAX_RETRIES}. */
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

        public MessageEvent build() {
            return new MessageEvent(eventNo, eventType, bizType, bizId, source, payload, maxRetries, traceId, remark);
        }
    }
}
