package dev.postbox.console;

import java.util.concurrent.ThreadLocalRandom;

/** Short ids that tie a 500 answer (which says nothing else) to the server's log line with the stack trace. */
final class Incidents {

    private Incidents() {
    }

    static String next() {
        return Long.toString(ThreadLocalRandom.current().nextLong(36L * 36 * 36 * 36 * 36 * 36, 36L * 36 * 36 * 36 * 36 * 36 * 36), 36);
    }
}
