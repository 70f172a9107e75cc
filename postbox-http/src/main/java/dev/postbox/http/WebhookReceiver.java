package dev.postbox.http;

import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.ValidationException;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.inbox.InboxResult;
import dev.postbox.spi.Envelope;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The receiving side of {@link HttpPublisher}, usable from any HTTP server: give it the method, the
 * headers and the body bytes of a request; it verifies the signature, reads the {@link Envelope}, runs
 * the {@link EnvelopeConsumer} (once per event number, in its own transaction) and says what to answer.
 * <pre>{@code
 * WebhookReceiver receiver = WebhookReceiver.builder(new EnvelopeConsumer(dataSource, postbox.inbox(), "billing",
 *                 (c, envelope) -> book(c, envelope.payload())))
 *         .verifier(WebhookVerifier.of(secret))
 *         .build();
 * WebhookResponse r = receiver.receive("POST", headers, body);   // answer r.status() with r.message()
 * }</pre>
 * Answers: 200 when the work ran and when it had already run (a re-post; the inbox absorbed it);
 * 401 for a missing or bad signature or one outside the time window; 400 for a body or headers that are
 * not a Postbox envelope (logged with the header at fault; the sender makes it DEAD, not retried);
 * 405 for another method than POST; 500 when the handler failed and 503 when the consumer's database
 * failed, both retried by the sender. The event's own headers come back with lower-case names (HTTP
 * header names are case-insensitive). Thread-safe if the handler is.
 */
public final class WebhookReceiver {

    private static final Logger log = LoggerFactory.getLogger(WebhookReceiver.class);

    private final EnvelopeConsumer consumer;
    private final WebhookVerifier verifier;

    private WebhookReceiver(Builder b) {
        this.consumer = b.consumer;
        this.verifier = b.verifier;
    }

    /** A builder for a receiver that hands each delivery to {@code consumer}. */
    public static Builder builder(EnvelopeConsumer consumer) {
        return new Builder(consumer);
    }

    /**
     * Handles one request.
     *
     * @param method  the HTTP method
     * @param headers the request headers, names in any case; the first value of each is used
     * @param body    the request body as received
     */
    public WebhookResponse receive(String method, Map<String, List<String>> headers, byte[] body) {
        if (!"POST".equalsIgnoreCase(method)) {
            return new WebhookResponse(405, "only POST is accepted");
        }
        Map<String, String> h = lowerCase(Objects.requireNonNull(headers, "headers"));
        if (verifier != null) {
            try {
                verifier.verify(h.get(WebhookHeaders.SIGNATURE.toLowerCase(Locale.ROOT)), body);
            } catch (WebhookSignatureException e) {
                log.warn("Consumer '{}': webhook rejected (401): {}", consumer.consumer(), e.getMessage());
                return new WebhookResponse(401, e.getMessage());
            }
        }
        Envelope envelope;
        try {
            envelope = Envelope.fromHeaders(envelopeHeaders(h), utf8(body));
        } catch (ValidationException e) {
            log.warn("Consumer '{}': not a Postbox delivery (400): {}", consumer.consumer(), e.getMessage());
            return new WebhookResponse(400, "not a Postbox envelope: " + e.getMessage());
        }
        try {
            InboxResult<Void> result = consumer.accept(envelope);
            return result.ran() ? new WebhookResponse(200, "ran") : new WebhookResponse(200, "duplicate");
        } catch (PostboxSqlException e) {
            log.warn("Consumer '{}': event {} not consumed, the database failed (503): {}", consumer.consumer(),
                    envelope.eventNo(), e.getMessage());
            return new WebhookResponse(503, "consumer database unavailable, retry later");
        } catch (RuntimeException e) {
            log.warn("Consumer '{}': handler failed for event {} (500)", consumer.consumer(), envelope.eventNo(), e);
            return new WebhookResponse(500, "handler failed: " + e.getClass().getSimpleName());
        }
    }

    private static Map<String, String> lowerCase(Map<String, List<String>> headers) {
        Map<String, String> h = new LinkedHashMap<>();
        headers.forEach((name, values) -> {
            if (name != null && values != null && !values.isEmpty()) {
                h.putIfAbsent(name.toLowerCase(Locale.ROOT), values.get(0));
            }
        });
        return h;
    }

    /** The postbox-* fields and traceparent, plus the event's own headers named by Postbox-Headers; decoded. */
    private static Map<String, String> envelopeHeaders(Map<String, String> h) {
        Map<String, String> e = new LinkedHashMap<>();
        h.forEach((name, value) -> {
            if (name.startsWith(Envelope.RESERVED_PREFIX) || name.equals(Envelope.TRACEPARENT)) {
                e.put(name, HeaderValues.decode(name, value));
            }
        });
        String own = h.get(WebhookHeaders.OWN_HEADERS.toLowerCase(Locale.ROOT));
        if (own != null && !own.isBlank()) {
            for (String name : own.split(",")) {
                String n = name.trim().toLowerCase(Locale.ROOT);
                String value = h.get(n);
                if (value == null) {
                    throw new ValidationException(n, "header is missing but listed in " + WebhookHeaders.OWN_HEADERS);
                }
                e.put(n, HeaderValues.decode(n, value));
            }
        }
        return e;
    }

    private static String utf8(byte[] body) {
        if (body == null) {
            return null;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body)).toString();
        } catch (CharacterCodingException e) {
            throw new ValidationException("payload", "the body is not valid UTF-8");
        }
    }

    /** Settings of a {@link WebhookReceiver}. Not thread-safe. */
    public static final class Builder {
        private final EnvelopeConsumer consumer;
        private WebhookVerifier verifier;
        private boolean unsigned;

        private Builder(EnvelopeConsumer consumer) {
            if (consumer == null) {
                throw new ValidationException("webhook.consumer", "must not be null");
            }
            this.consumer = consumer;
        }

        /** Checks every request's {@code Postbox-Signature}; required unless {@link #allowUnsigned()}. */
        public Builder verifier(WebhookVerifier verifier) {
            if (verifier == null) {
                throw new ValidationException("webhook.verifier", "must not be null");
            }
            this.verifier = verifier;
            return this;
        }

        /** Accepts requests without checking any signature: only where nobody else can reach the endpoint. */
        public Builder allowUnsigned() {
            this.unsigned = true;
            return this;
        }

        /** Validates the settings and builds the receiver. */
        public WebhookReceiver build() {
            if (verifier == null && !unsigned) {
                throw new ValidationException("webhook.verifier", "is required (WebhookVerifier.of(secret));"
                        + " call allowUnsigned() to accept unsigned requests on purpose");
            }
            if (verifier != null && unsigned) {
                throw new ValidationException("webhook.verifier", "contradicts allowUnsigned(): choose one");
            }
            return new WebhookReceiver(this);
        }
    }
}
