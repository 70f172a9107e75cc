package dev.postbox.operations;

import dev.postbox.common.ValidationException;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;

/**
 * The token a bulk action's dry run hands out: {@code <expiry millis>.<dry-run count>.<HMAC-SHA256>} over the
 * request (kind, action, query, cap, reason), the operator, the expiry and the count, with a random key of this
 * instance. So the action runs only as previewed, by who previewed it, before the expiry, on this instance (a
 * restart or another instance asks for a new dry run), and the dry run's count it records cannot be made up.
 */
final class PreviewToken {

    private final byte[] key = new byte[32];

    PreviewToken() {
        new SecureRandom().nextBytes(key);
    }

    String issue(BulkRequest r, String operator, Instant expires, long count) {
        return expires.toEpochMilli() + "." + count + "." + mac(r, operator, expires.toEpochMilli(), count);
    }

    /**
     * The dry run's count if {@code token} was issued for this request and operator and has not expired at
     * {@code now}; a {@link ValidationException} naming {@code previewToken} otherwise.
     */
    long verify(String token, BulkRequest r, String operator, Instant now) {
        if (token == null || token.isBlank()) {
            throw new ValidationException("previewToken", "is required: run the dry run (preview) of this bulk action first");
        }
        String[] parts = token.split("\\.", -1);
        long expires;
        long count;
        try {
            if (parts.length != 3) {
                throw new NumberFormatException();
            }
            expires = Long.parseLong(parts[0]);
            count = Long.parseLong(parts[1]);
        } catch (NumberFormatException e) {
            throw new ValidationException("previewToken", "is not a token of a dry run");
        }
        byte[] expected = mac(r, operator, expires, count).getBytes(StandardCharsets.US_ASCII);
        if (!MessageDigest.isEqual(expected, parts[2].getBytes(StandardCharsets.US_ASCII))) {
            throw new ValidationException("previewToken", "does not belong to this request: kind, action, query, cap,"
                    + " reason and operator must be those of the dry run (and the dry run of this instance)");
        }
        if (!now.isBefore(Instant.ofEpochMilli(expires))) {
            throw new ValidationException("previewToken", "expired at " + Instant.ofEpochMilli(expires)
                    + ": run the dry run again");
        }
        return count;
    }

    private String mac(BulkRequest r, String operator, long expires, long count) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            for (String part : new String[] {r.kind().name(), r.action().name(), r.query(), Integer.toString(r.cap()),
                    r.reason(), operator, Long.toString(expires), Long.toString(count)}) {
                byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
                mac.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
                mac.update((byte) ':');
                mac.update(bytes);
            }
            return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
