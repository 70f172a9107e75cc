package dev.postbox.relay;

import dev.postbox.common.RetryPolicy;
import dev.postbox.spi.ErrorClassifier;
import dev.postbox.spi.Publisher;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A relay's settings as {@link RelayBuilder#build()} validated them, frozen: a relay and everything it
 * builds read only this record, never the builder, so that changing the builder after {@code build()}
 * changes nothing that runs. The collections are copies that cannot be changed (the unordered topics
 * keep their order, which is the order of their IN list in the claim's SQL).
 *
 * @param dataSource  the data source handed in, or null: the relay opens a pool of its own
 * @param inFlightBatches how many cycles run at once, each on its own thread with its own batch
 * @param maxClockSkew the resolved bound (never null), checked only when {@code clockSkewCheck}
 * @param heartbeatInterval time between two heartbeats (instance row, stats row)
 */
record RelayConfig(Publisher publisher, String instanceId, int batchSize, Duration lease, Duration sendTimeout,
                   Duration pollMin, Duration pollMax, int poolSize, int inFlightBatches, Duration shutdownTimeout, boolean ordered,
                   Set<String> unorderedTopics, RetryPolicy retryPolicy, Map<String, RetryPolicy> retryPolicies,
                   ErrorClassifier classifier, RelayListener listener, DataSource dataSource, boolean listen,
                   boolean asyncCommit, int maxLeaseExpiries, Duration maxClockSkew, boolean clockSkewCheck,
                   Duration heartbeatInterval) {

    RelayConfig {
        Objects.requireNonNull(publisher, "publisher");
        unorderedTopics = Collections.unmodifiableSet(new LinkedHashSet<>(unorderedTopics));
        retryPolicies = Map.copyOf(retryPolicies);
        Objects.requireNonNull(retryPolicy, "retryPolicy");
        Objects.requireNonNull(classifier, "errorClassifier");
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
    }

    /** The clock check's bound, or null when the check is off (the relay's clock is trusted as is). */
    Duration clockBound() {
        return clockSkewCheck ? maxClockSkew : null;
    }

    /** How logs name this relay. */
    String owner() {
        return "Relay " + instanceId;
    }
}
