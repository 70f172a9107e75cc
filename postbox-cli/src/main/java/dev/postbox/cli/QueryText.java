package dev.postbox.cli;

import java.util.List;
import java.util.StringJoiner;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The search text of the console's language from the words of a command line. The shell has already removed
 * the quotes of {@code error:"connection refused"}, so a word with a space in it is quoted again
 * ({@code error:"connection refused"}, a bare {@code "two words"}); a word that holds a quote, or several
 * qualifiers (a query quoted as a whole: {@code 'status:dead error:"timed out"'}), reaches the console as typed.
 */
final class QueryText {

    private static final Pattern QUALIFIED = Pattern.compile("([A-Za-z_]+)(:|>=)(.*)", Pattern.DOTALL);
    private static final Pattern KNOWN = Pattern.compile(
            "(event_no|aggregate|trace|type|status|topic|channel|after|before|error):|attempts>=",
            Pattern.CASE_INSENSITIVE);

    private QueryText() {
    }

    static String join(List<String> words) {
        StringJoiner q = new StringJoiner(" ");
        for (String w : words) {
            q.add(word(w));
        }
        return q.toString().trim();
    }

    private static String word(String w) {
        if (w.chars().noneMatch(Character::isWhitespace) || w.indexOf('"') >= 0) {
            return w;
        }
        String[] parts = w.trim().split("\\s+");
        for (int i = 1; i < parts.length; i++) {
            if (KNOWN.matcher(parts[i]).lookingAt()) {
                return w; // a whole query in one argument: as typed
            }
        }
        Matcher m = QUALIFIED.matcher(w);
        return m.matches() ? m.group(1) + m.group(2) + quote(m.group(3)) : quote(w);
    }

    private static String quote(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
