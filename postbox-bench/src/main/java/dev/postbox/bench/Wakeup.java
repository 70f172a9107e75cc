package dev.postbox.bench;

import dev.postbox.Postbox;

/**
 * The {@code --wakeup} choices: how a committed event gets the relay going.
 * <ul>
 * <li>{@code off}: polling only (no in-JVM hint, no NOTIFY, no LISTEN);</li>
 * <li>{@code on}: the same-JVM after-commit hint {@code postbox.wakeRelays()} after each commit, no NOTIFY;</li>
 * <li>{@code notify}: PostgreSQL only, each write issues {@code pg_notify} and the relay LISTENs
 * (Postbox's default on PostgreSQL), no in-JVM hint.</li>
 * </ul>
 */
enum Wakeup {

    OFF, ON, NOTIFY;

    static Wakeup parse(String mode, String db) {
        Wakeup w = switch (mode) {
            case "off" -> OFF;
            case "on" -> ON;
            case "notify" -> NOTIFY;
            default -> throw new UsageException("--wakeup must be off (polling only), on (after-commit wakeRelays())"
                    + " or notify (PostgreSQL NOTIFY/LISTEN); was '" + mode + "'");
        };
        if (w == NOTIFY && !BenchDatabase.kind(db).equals("postgres")) {
            throw new UsageException("--wakeup notify needs --db postgres (NOTIFY/LISTEN is PostgreSQL's)");
        }
        return w;
    }

    /** Whether writers NOTIFY and relays LISTEN. */
    boolean notifies() {
        return this == NOTIFY;
    }

    /** What a producer runs after each commit. */
    Runnable afterCommit(Postbox postbox) {
        return this == ON ? postbox::wakeRelays : () -> { };
    }
}
