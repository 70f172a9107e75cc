package dev.postbox.internal;

import dev.postbox.common.ValidationException;
import dev.postbox.jdbc.Dialect;

/**
 * Field checks shared by every write path and filter: a text either is stored and read back exactly on
 * the database, or is refused with a {@link ValidationException} naming the field and the limit.
 * <ul>
 *   <li>no unpaired UTF-16 surrogate (what {@code substring} leaves of a cut emoji): the PostgreSQL and
 *       MariaDB drivers would store it as {@code ?}, so two different keys would collide;</li>
 *   <li>no NUL character: PostgreSQL refuses it in text;</li>
 *   <li>keys (event_no, aggregate type/id, event type, consumer, ...) neither start nor end with
 *       whitespace: MySQL/MariaDB collations pad with spaces, so {@code A} and {@code A } would be one key
 *       there;</li>
 *   <li>lengths in what the database's {@code VARCHAR(n)} counts ({@link Dialect#textLength}): code points
 *       on PostgreSQL and MariaDB, UTF-16 code units on H2.</li>
 * </ul>
 * The overloads without a dialect (settings checked before the database is known) count UTF-16 code
 * units, never less than any database counts, so what passes fits everywhere.
 */
public final class Check {

    private static final char REPLACEMENT = '\uFFFD';

    private Check() {
    }

    /** A required text: not null, not blank, at most {@code max} characters; see the class comment. */
    public static String required(Dialect dialect, String field, String value, int max) {
        if (value == null) {
            throw new ValidationException(field, "is required (at most " + max + " " + unit(dialect) + ")");
        }
        if (value.isBlank()) {
            throw new ValidationException(field, "must not be blank (at most " + max + " " + unit(dialect) + ")");
        }
        return optional(dialect, field, value, max);
    }

    /** An optional text: null allowed; otherwise as {@link #required} without the blank check. */
    public static String optional(Dialect dialect, String field, String value, int max) {
        if (value == null) {
            return null;
        }
        int lone = loneSurrogate(value);
        if (lone >= 0) {
            throw new ValidationException(field, "is not valid Unicode: unpaired surrogate at index " + lone
                    + " (the database would store it as '?'; was it cut in the middle of a character?)");
        }
        int nul = value.indexOf('\0');
        if (nul >= 0) {
            throw new ValidationException(field, "must not contain NUL characters (found at index " + nul + ")");
        }
        int length = dialect == null ? value.length() : dialect.textLength(value);
        if (length > max) {
            throw new ValidationException(field, "must be at most " + max + " " + unit(dialect) + " (was " + length + ")");
        }
        return value;
    }

    /**
     * A required key: as {@link #required}, and without leading or trailing whitespace, which MySQL's
     * PAD SPACE collations would ignore when comparing ({@code A} and {@code A } are one key there).
     */
    public static String key(Dialect dialect, String field, String value, int max) {
        required(dialect, field, value, max);
        if (Character.isWhitespace(value.charAt(0)) || Character.isWhitespace(value.charAt(value.length() - 1))) {
            throw new ValidationException(field, "must not start or end with whitespace (MySQL/MariaDB compare"
                    + " 'A' and 'A ' as equal)");
        }
        return value;
    }

    /** {@link #required} before the database is known: counts UTF-16 code units. */
    public static String required(String field, String value, int max) {
        return required(null, field, value, max);
    }

    /** {@link #optional} before the database is known: counts UTF-16 code units. */
    public static String optional(String field, String value, int max) {
        return optional(null, field, value, max);
    }

    /** {@link #key} before the database is known: counts UTF-16 code units. */
    public static String key(String field, String value, int max) {
        return key(null, field, value, max);
    }

    private static String unit(Dialect dialect) {
        return dialect == null ? "characters (UTF-16 code units)" : dialect.textLengthUnit();
    }

    /** An int within {@code [min, max]}. */
    public static int range(String field, int value, int min, int max) {
        if (value < min || value > max) {
            throw new ValidationException(field, "must be between " + min + " and " + max + " (was " + value + ")");
        }
        return value;
    }

    /**
     * A JSON document: required, at most {@code maxBytes} UTF-8 bytes, valid JSON, and one that the
     * dialect's JSON column accepts ({@link Json#requireValid(Dialect, String, String)}).
     */
    public static String json(Dialect dialect, String field, String value, int maxBytes) {
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
        Json.requireValid(dialect, field, value);
        return value;
    }

    /** {@link #json(Dialect, String, String, int)} checking only the JSON syntax, on no particular database. */
    public static String json(String field, String value, int maxBytes) {
        return json(null, field, value, maxBytes);
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

    /**
     * Makes text that Postbox itself stores (failure reasons from exceptions and response bodies,
     * last_error, cancel reasons) storable on every database instead of rejecting it: NUL and the other
     * control characters except tab, line feed and carriage return become U+FFFD (PostgreSQL refuses
     * NUL, and control characters in a dashboard or a terminal do harm), so do unpaired surrogates
     * (which drivers would store as '?'), and text over {@code max} UTF-16 code units (never fewer than
     * what any database counts) is cut at a character boundary and ends with "…". Null stays null.
     */
    public static String clip(String value, int max) {
        if (value == null) {
            return null;
        }
        StringBuilder b = null;
        for (int i = 0, n = value.length(); i < n; i++) {
            char c = value.charAt(i);
            boolean pair = Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(value.charAt(i + 1));
            boolean bad = !pair && (Character.isSurrogate(c) || isUnwantedControl(c));
            if (bad && b == null) {
                b = new StringBuilder(n).append(value, 0, i);
            }
            if (b != null) {
                if (bad) {
                    b.append(REPLACEMENT);
                } else {
                    b.append(c);
                    if (pair) {
                        b.append(value.charAt(i + 1));
                    }
                }
            }
            if (pair) {
                i++;
            }
        }
        String clean = b == null ? value : b.toString();
        if (clean.length() <= max) {
            return clean;
        }
        int end = max - 1;
        if (Character.isHighSurrogate(clean.charAt(end - 1))) {
            end--;
        }
        return clean.substring(0, end) + "…";
    }

    /** A setting that must be a positive duration; returns it. */
    public static java.time.Duration positive(String field, java.time.Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new ValidationException(field, "must be a positive duration (was " + d + ")");
        }
        return d;
    }

    /** A duration setting within {@code min} .. {@code max} (inclusive); returns it. */
    public static java.time.Duration between(String field, java.time.Duration d, java.time.Duration min,
                                             java.time.Duration max) {
        if (d == null || d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new ValidationException(field, "must be between " + min + " and " + max + " (was " + d + ")");
        }
        return d;
    }

    /** {@link #clip} under its purpose's name: text Postbox writes, made storable. */
    public static String storable(String value, int max) {
        return clip(value, max);
    }

    private static boolean isUnwantedControl(char c) {
        return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
    }
}
