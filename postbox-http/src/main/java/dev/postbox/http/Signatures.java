package dev.postbox.http;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;

/** HMAC-SHA256 of {@code "<t>.<body>"}, shared by the publisher (signing) and {@link WebhookVerifier}. */
final class Signatures {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Signatures() {
    }

    static byte[] hmac(byte[] secret, long unixSeconds, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(Long.toString(unixSeconds).getBytes(StandardCharsets.US_ASCII));
            mac.update((byte) '.');
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    /** The {@link WebhookHeaders#SIGNATURE} header value. */
    static String header(byte[] secret, long unixSeconds, byte[] body) {
        return "t=" + unixSeconds + ",v1=" + hex(hmac(secret, unixSeconds, body));
    }

    static String hex(byte[] bytes) {
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
            out[2 * i + 1] = HEX[bytes[i] & 0xf];
        }
        return new String(out);
    }

    /** The bytes of a hex string, or null if it is not one. */
    static byte[] unhex(String hex) {
        if (hex.length() % 2 != 0) {
            return null;
        }
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) {
            int hi = Character.digit(hex.charAt(2 * i), 16);
            int lo = Character.digit(hex.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                return null;
            }
            out[i] = (byte) (hi << 4 | lo);
        }
        return out;
    }
}
