package dev.postbox.outbox;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The bad-input suite's text cases, shared by every field of every table: lone surrogates, NUL, control
 * characters, edge spaces (refused for keys, which MySQL's PAD SPACE collations would pad), non-ASCII,
 * emoji exactly at the column's limit (stored) and one over (refused in the unit the database counts).
 */
public final class TextCases {

    private TextCases() {
    }

    /** A value for a field, and the refusal expected (null: stored and read back equal). */
    public record TextCase(String target, String field, String what, String value, String refusal) {
        @Override
        public String toString() {
            return target + "." + field + ": " + what + (refusal == null ? " is stored exactly" : " is refused (" + refusal + ")");
        }
    }

    public static final String EMOJI = "\uD83D\uDE00";


    /**
     * The cases of one text field of column size {@code max} ({@link Integer#MAX_VALUE}: no own limit) on a
     * database that counts in code points, or in UTF-16 code units when {@code countsUtf16}.
     */
    public static Stream<TextCase> of(String target, String field, int max, boolean key, boolean countsUtf16) {
        List<TextCase> cases = new ArrayList<>();
        cases.add(new TextCase(target, field, "lone high surrogate", "X\uD83D", "unpaired surrogate at index 1"));
        cases.add(new TextCase(target, field, "lone low surrogate", "X\uDE00Y", "unpaired surrogate at index 1"));
        cases.add(new TextCase(target, field, "surrogate pair cut by substring", (EMOJI + EMOJI).substring(0, 3),
                "unpaired surrogate at index 2"));
        cases.add(new TextCase(target, field, "NUL", "X\0Y", "NUL"));
        cases.add(new TextCase(target, field, "control characters", "X\u0001\u001b[0m\u007fY", null));
        cases.add(new TextCase(target, field, "tab and line breaks inside", "X\tY\r\nZ", null));
        cases.add(new TextCase(target, field, "trailing space", "O-1 ", key ? "must not start or end with whitespace" : null));
        cases.add(new TextCase(target, field, "leading space", " O-1", key ? "must not start or end with whitespace" : null));
        cases.add(new TextCase(target, field, "accents and CJK", "Ünïcødé-注文-ß", null));
        if (max != Integer.MAX_VALUE) {
            int fit = countsUtf16 ? max / 2 : max;
            cases.add(new TextCase(target, field, fit + " emoji (the limit)", EMOJI.repeat(fit), null));
            cases.add(new TextCase(target, field, (fit + 1) + " emoji (one over)", EMOJI.repeat(fit + 1),
                    "at most " + max + " characters"));
            cases.add(new TextCase(target, field, "one over, counted as the column counts",
                    EMOJI.repeat(fit + 1), "(was " + (countsUtf16 ? 2 * (fit + 1) : fit + 1) + ")"));
        }
        return cases.stream();
    }

}
