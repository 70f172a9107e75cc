package dev.postbox.console;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;

/**
 * The console's CSRF tokens: an HMAC-SHA256 of the operator's name under a secret of this console (random per
 * instance unless configured, so that several replicas behind one address accept each other's tokens). The UI
 * reads its token from {@code GET /api/me}, which another site cannot read (no CORS), and sends it as header
 * {@value #HEADER} with every change; a browser that a forged form or cross-site request makes send the
 * operator's credentials cannot add that header.
 */
final class Csrf {

    static final String HEADER = "X-Postbox-Csrf";

    private final byte[] secret;

    Csrf(byte[] secret) {
        this.secret = secret.clone();
    }

    String token(String operatorName) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            byte[] tag = mac.doFinal(("postbox-console-csrf\0" + operatorName).getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(tag);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    boolean valid(String operatorName, String presented) {
        if (presented == null) {
            return false;
        }
        return MessageDigest.isEqual(token(operatorName).getBytes(StandardCharsets.US_ASCII),
                presented.strip().getBytes(StandardCharsets.UTF_8));
    }
}
