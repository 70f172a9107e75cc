package dev.postbox.http;

import dev.postbox.common.ValidationException;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * HTTP header values are visible ASCII and lose surrounding whitespace; an envelope value that is not
 * (non-ASCII text, control characters, leading or trailing blanks) travels as an RFC 8187 extended
 * value {@code UTF-8''<percent-encoded bytes>}. A value that merely starts like one is encoded too, so
 * decoding is never ambiguous.
 */
final class HeaderValues {

    static final String PREFIX = "UTF-8''";
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private HeaderValues() {
    }

    static String encode(String value) {
        if (plain(value)) {
            return value;
        }
        StringBuilder out = new StringBuilder(PREFIX);
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (attrChar(c)) {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        return out.toString();
    }

    /** @throws ValidationException naming {@code header} when its extended value is malformed */
    static String decode(String header, String value) {
        if (value == null || !value.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            return value;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(value.length());
        for (int i = PREFIX.length(); i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '%') {
                int hi = i + 2 < value.length() ? Character.digit(value.charAt(i + 1), 16) : -1;
                int lo = hi < 0 ? -1 : Character.digit(value.charAt(i + 2), 16);
                if (lo < 0) {
                    throw new ValidationException(header, "malformed percent-encoding at index " + i);
                }
                bytes.write(hi << 4 | lo);
                i += 2;
            } else {
                bytes.write(c);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static boolean plain(String v) {
        if (v.isEmpty()) {
            return true;
        }
        if (v.charAt(0) == ' ' || v.charAt(v.length() - 1) == ' ' || v.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            return false;
        }
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return false;
            }
        }
        return true;
    }

    private static boolean attrChar(int c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "!#$&+-.^_`|~".indexOf(c) >= 0;
    }

    /** An RFC 9110 token, the syntax of a header name. */
    static boolean validName(String name) {
        if (name == null || name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "!#$%&'*+-.^_`|~".indexOf(c) >= 0)) {
                return false;
            }
        }
        return true;
    }
}
