package dev.postbox.internal;

import dev.postbox.ValidationException;

/**
 * Field checks shared by the write paths. Lengths are counted in UTF-16 code units, which is never
 * less than what PostgreSQL, MySQL/MariaDB (utf8mb4) or H2 count, so a value that passes fits the column
 * on every database.
 */
public final class Check {

    private Check() {
    }

    /** A required text: not null, not blank, at most {@code max} characters, no NUL characters. */
    public static String required(String field, String value, int max) {
        if (value == null) {
            throw new ValidationException(field, "is required (at most " + max + " characters)");
        }
        if (value.isBlank()) {
            throw new ValidationException(field, "must not be blank (at most " + max + " characters)");
        }
        return optional(field, value, max);
    }

    /** An optional text: null allowed; otherwise at most {@code max} characters and no NUL characters. */
    public static String optional(String field, String value, int max) {
        if (value == null) {
            return null;
        }
        if (value.length() > max) {
            throw new ValidationException(field, "must be at most " + max + " characters (was " + value.length() + ")");
        }
        if (value.indexOf('\0') >= 0) {
            throw new ValidationException(field, "must not contain NUL characters");
        }
        return value;
    }

    /**
     * A required key (event_no, consumer name, business key): as {@link #required}, and without
     * leading or trailing whitespace, which MySQL's PAD SPACE collations would ignore when comparing.
     */
    public static String key(String field, String value, int max) {
        required(field, value, max);
        if (Character.isWhitespace(value.charAt(0)) || Character.isWhitespace(value.charAt(value.length() - 1))) {
            throw new ValidationException(field, "must not start or end with whitespace");
        }
        return value;
    }

    /** An int within {@code [min, max]}. */
    public static int range(String field, int value, int min, int max) {
        if (value < min || value > max) {
            throw new ValidationException(field, "must be between " + min + " and " + max + " (was " + value + ")");
        }
        return value;
    }

    /** A JSON document: required, at most {@code maxBytes} UTF-8 bytes, and valid JSON. */
    public static String json(String field, String value, int maxBytes) {
        if (value == null) {
            throw new ValidationException(field, "is required (a JSON value of at most " + maxBytes + " bytes)");
        }
        int lone = loneSurrogate(value);
        if (lone >= 0) {
            throw new ValidationException(field, "is not valid Unicode: unpaired surrogate at index " + lone
                    + " (it would be stored as '?')");
        }
        long bytes = utf8Length(value);
        if (bytes > maxBytes) {
            throw new ValidationException(field, "must be at most " + maxBytes + " bytes of UTF-8 (was " + bytes + ")");
        }
        Json.requireValid(field, value);
        return value;
    }

    /** Index of the first unpaired UTF-16 surrogate, or -1. */
    static int loneSurrogate(CharSequence s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /** UTF-8 length of a string without encoding it (an unpaired surrogate counts as 3 bytes). */
    public static long utf8Length(CharSequence s) {
        long bytes = 0;
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    /** Shortens diagnostic text (failure reasons) to fit a column instead of rejecting it. */
    public static String clip(String value, int max) {
        if (value == null || value.length() <= max) {
            return value;
        }
        int end = max - 1;
        if (Character.isHighSurrogate(value.charAt(end - 1))) {
            end--;
        }
        return value.substring(0, end) + "…";
    }
}
