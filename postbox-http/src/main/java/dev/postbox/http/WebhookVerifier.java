package dev.postbox.http;

import dev.postbox.common.ValidationException;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * The receiving side of {@code Postbox-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">}:
 * checks the HMAC with the shared secret in constant time and that {@code t} is within the tolerance of
 * now (default 5 minutes either way), so that a captured request cannot be replayed later. Several
 * {@code v1} entries are accepted (any one matching), for secret rotation on the sending side.
 * Usable without the rest of Postbox; immutable and thread-safe.
 * <pre>{@code
 * WebhookVerifier verifier = WebhookVerifier.of(secret);
 * verifier.verify(request.getHeader("Postbox-Signature"), bodyBytes);   // throws WebhookSignatureException
 * }</pre>
 */
public final class WebhookVerifier {

    /** Default of {@link #tolerance}: how far the signature's time may be from now, either way. */
    public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);

    private final byte[] secret;
    private final Duration tolerance;
    private final Clock clock;

    private WebhookVerifier(byte[] secret, Duration tolerance, Clock clock) {
        this.secret = secret;
        this.tolerance = tolerance;
        this.clock = clock;
    }

    /** A verifier for {@code secret} (the publisher's {@code secret(...)}), 5 minutes' tolerance, UTC system clock. */
    public static WebhookVerifier of(String secret) {
        if (secret == null || secret.isBlank()) {
            throw new ValidationException("webhook.secret", "must not be blank");
        }
        return new WebhookVerifier(secret.getBytes(StandardCharsets.UTF_8), DEFAULT_TOLERANCE, Clock.systemUTC());
    }

    /** The same verifier with another tolerance (positive). */
    public WebhookVerifier tolerance(Duration tolerance) {
        if (tolerance == null || tolerance.isNegative() || tolerance.isZero()) {
            throw new ValidationException("webhook.tolerance", "must be positive (was " + tolerance + ")");
        }
        return new WebhookVerifier(secret, tolerance, clock);
    }

    /** The same verifier with another clock (for tests). */
    public WebhookVerifier clock(Clock clock) {
        if (clock == null) {
            throw new ValidationException("webhook.clock", "must not be null");
        }
        return new WebhookVerifier(secret, tolerance, clock);
    }

    /**
     * Checks one request.
     *
     * @param signature the {@code Postbox-Signature} header value, or null when absent
     * @param body      the request body exactly as received
     * @throws WebhookSignatureException saying what is wrong (missing, malformed, outside the window, no match)
     */
    public void verify(String signature, byte[] body) {
        if (signature == null || signature.isBlank()) {
            throw new WebhookSignatureException(WebhookHeaders.SIGNATURE + " header is missing");
        }
        Long t = null;
        java.util.List<byte[]> candidates = new java.util.ArrayList<>();
        for (String part : signature.split(",")) {
            String p = part.trim();
            if (p.startsWith("t=") && t == null) {
                try {
                    t = Long.parseLong(p.substring(2));
                } catch (NumberFormatException e) {
                    throw malformed();
                }
            } else if (p.startsWith("v1=")) {
                byte[] mac = Signatures.unhex(p.substring(3));
                if (mac != null) {
                    candidates.add(mac);
                }
            }
        }
        if (t == null || candidates.isEmpty()) {
            throw malformed();
        }
        Instant signed = Instant.ofEpochSecond(t);
        Instant now = clock.instant();
        if (Duration.between(signed, now).abs().compareTo(tolerance) > 0) {
            throw new WebhookSignatureException(WebhookHeaders.SIGNATURE + " time " + signed + " is outside the tolerance of "
                    + tolerance + " around now (" + now + "): a replay, or clocks out of sync");
        }
        byte[] expected = Signatures.hmac(secret, t, body);
        boolean match = false;
        for (byte[] candidate : candidates) {
            match |= MessageDigest.isEqual(expected, candidate); // constant time; no early exit either
        }
        if (!match) {
            throw new WebhookSignatureException(WebhookHeaders.SIGNATURE
                    + " does not match the body: another secret, or the body was changed on the way");
        }
    }

    private static WebhookSignatureException malformed() {
        return new WebhookSignatureException(WebhookHeaders.SIGNATURE + " is malformed: expected t=<unix seconds>,v1=<hex>");
    }
}
