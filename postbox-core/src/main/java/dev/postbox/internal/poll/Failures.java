package dev.postbox.internal.poll;

import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;

/** How background jobs describe and contain failures. */
public final class Failures {

    private Failures() {
    }

    /**
     * {@code e} for a log line, with the first cause of its chain when that says more: during a database
     * crash a claim fails with the server's own reason ("terminating connection due to administrator
     * command", "Connection refused"), which is what a person needs to read.
     */
    public static String describe(Throwable e) {
        Throwable root = e;
        Set<Throwable> seen = new HashSet<>();
        while (seen.add(root)) {
            Throwable next = root.getCause();
            if (next == null && root instanceof SQLException sql) {
                next = sql.getNextException();
            }
            if (next == null) {
                break;
            }
            root = next;
        }
        return root == e ? e.toString() : e + " (cause: " + root + ")";
    }

    /**
     * Runs a hook of user code (a listener, a callback) so that whatever it throws, an {@link Error}
     * included, is logged at WARN and the job goes on.
     */
    public static void safely(org.slf4j.Logger log, String owner, Runnable hook) {
        try {
            hook.run();
        } catch (Throwable e) {
            log.warn("{}: listener failed: {}", owner, describe(e));
        }
    }
}
