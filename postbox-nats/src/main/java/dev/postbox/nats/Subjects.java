package dev.postbox.nats;

/** NATS subject rules for publishing: dot-separated non-empty tokens, no whitespace, no wildcards. */
final class Subjects {

    private Subjects() {
    }

    /** Why {@code subject} cannot be published to, or null when it can. */
    static String problem(String subject) {
        if (subject == null || subject.isEmpty()) {
            return "empty";
        }
        if (subject.startsWith(".") || subject.endsWith(".") || subject.contains("..")) {
            return "has an empty token";
        }
        for (String token : subject.split("\\.")) {
            if (token.equals("*") || token.equals(">")) {
                return "has the wildcard '" + token + "'";
            }
        }
        for (int i = 0; i < subject.length(); i++) {
            char c = subject.charAt(i);
            if (Character.isWhitespace(c) || Character.isISOControl(c)) {
                return "contains whitespace or a control character";
            }
        }
        return null;
    }
}
