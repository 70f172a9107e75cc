package dev.postbox.testing;

/**
 * The size of the load tests (many events through relays, transports, workers): by default the CI size, a fifth of
 * the full one, which keeps every property a load test checks (many batches, every aggregate many times, several
 * relays or workers sharing the work) within the CI's time; {@code -Dpostbox.test.scale=full} runs them at the full
 * size, e.g. {@code mvn -B verify -Dpostbox.test.scale=full} before a release. The long soak and fault runs are the
 * benchmark module's ({@code scripts/bench}).
 */
public final class TestScale {

    /** The system property that selects the size: {@code full}, or {@code ci} (the default). */
    public static final String PROPERTY = "postbox.test.scale";

    private static final boolean FULL = "full".equalsIgnoreCase(System.getProperty(PROPERTY, "ci").trim());

    private TestScale() {
    }

    /** {@code full} at the full size, else a fifth of it (never below 1,000). */
    public static int events(int full) {
        return FULL ? full : Math.max(1_000, full / 5);
    }
}
