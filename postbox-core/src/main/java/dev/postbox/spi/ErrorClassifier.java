package dev.postbox.spi;

/**
 * Decides whether a publisher's exception is worth retrying. The default retries everything except
 * {@link NonRetryableException} and its causes chain, so an unknown failure is retried (and ends DEAD
 * only once its retries are used up) rather than dropped.
 */
@FunctionalInterface
public interface ErrorClassifier {

    /** RETRY or DEAD. */
    enum Decision { RETRY, DEAD }

    ErrorClassifier DEFAULT = error -> {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof NonRetryableException) {
                return Decision.DEAD;
            }
        }
        return Decision.RETRY;
    };

    Decision classify(Throwable error);
}
