package dev.postbox.server;

import dev.postbox.Postbox;
import dev.postbox.common.RetryPolicy;
import dev.postbox.common.ValidationException;
import dev.postbox.relay.Relay;
import dev.postbox.relay.RelayBuilder;
import dev.postbox.server.config.ServerConfig;
import dev.postbox.spi.Publisher;

import java.util.LinkedHashSet;
import java.util.Locale;

/** A source's relay settings applied to Postbox's relay builder, with Postbox's own checks reported by key. */
final class Relays {

    private Relays() {
    }

    /** {@code postbox}'s relay builder for {@code publisher} with {@code s} applied (Postbox's defaults where null). */
    static RelayBuilder builder(Postbox postbox, Publisher publisher, ServerConfig.RelaySettings s) {
        RelayBuilder b = postbox.relay(publisher);
        if (s.batchSize() != null) {
            b.batchSize(s.batchSize());
        }
        if (s.poolSize() != null) {
            b.poolSize(s.poolSize());
        }
        if (s.inFlightBatches() != null) {
            b.inFlightBatches(s.inFlightBatches());
        }
        if (s.leaseDuration() != null) {
            b.leaseDuration(s.leaseDuration());
        }
        if (s.sendTimeout() != null) {
            b.sendTimeout(s.sendTimeout());
        }
        if (s.pollIntervalMin() != null || s.pollIntervalMax() != null) {
            b.pollInterval(s.pollIntervalMin() != null ? s.pollIntervalMin() : dev.postbox.relay.RelayDefaults.POLL_MIN,
                    s.pollIntervalMax() != null ? s.pollIntervalMax() : dev.postbox.relay.RelayDefaults.POLL_MAX);
        }
        if (s.ordered() != null) {
            b.ordered(s.ordered());
        }
        if (!s.unorderedTopics().isEmpty()) {
            b.unorderedTopics(new LinkedHashSet<>(s.unorderedTopics()));
        }
        if (s.heartbeatInterval() != null) {
            b.heartbeatInterval(s.heartbeatInterval());
        }
        if (s.retryBase() != null || s.retryCap() != null) {
            b.retryPolicy(RetryPolicy.exponential(s.retryBase() != null ? s.retryBase() : RetryPolicy.DEFAULT_BASE,
                    s.retryCap() != null ? s.retryCap() : RetryPolicy.DEFAULT_CAP));
        }
        return b;
    }

    /**
     * Checks {@code s} against Postbox's limits by building (not starting) a relay; null when they hold, else the
     * problem as {@code sources.NAME.relay.KEY: problem}.
     */
    static String check(Postbox postbox, String sourceKey, ServerConfig.RelaySettings s) {
        try (Relay relay = builder(postbox, records -> java.util.List.of(), s).build()) {
            return null;
        } catch (ValidationException e) {
            String problem = e.getMessage().substring(e.field().length() + 2);
            return sourceKey + ".relay." + kebab(e.field()) + ": " + problem;
        }
    }

    /** {@code leaseDuration} -> {@code lease-duration}; {@code pollInterval.max} -> {@code poll-interval-max}. */
    static String kebab(String field) {
        return field.replace('.', '-').replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
