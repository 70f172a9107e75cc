package dev.postbox.http;

/**
 * The HTTP header names of a Postbox webhook besides the envelope's own {@code Postbox-*} fields
 * ({@link dev.postbox.spi.Envelope#toHeaders()}). HTTP header names are case-insensitive; the receiver
 * reads them in lower case.
 */
public final class WebhookHeaders {

    /** {@code t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">}, present when the publisher has a secret. */
    public static final String SIGNATURE = "Postbox-Signature";
    /** The event number, so that any receiver can deduplicate without knowing Postbox. */
    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    /** Comma-separated lower-case names of the event's own headers, which travel under their own names. */
    public static final String OWN_HEADERS = "Postbox-Headers";
    /** The content type of every webhook: the payload is JSON, sent unchanged. */
    public static final String JSON_UTF8 = "application/json; charset=utf-8";

    private WebhookHeaders() {
    }
}
