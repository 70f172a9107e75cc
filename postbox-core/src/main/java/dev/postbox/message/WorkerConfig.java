package dev.postbox.message;

import dev.postbox.common.RetryPolicy;
import dev.postbox.spi.ErrorClassifier;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A worker's settings as {@link MessageWorkerBuilder#build()} validated them: immutable (the maps are
 * copies), so that changing the builder later cannot change a built worker.
 *
 * @param handlers   in the order they were registered
 * @param dataSource the worker's own data source, or null for a pool the worker opens
 * @param heartbeatInterval time between two heartbeats (instance row, stats row)
 */
record WorkerConfig(String instanceId, Map<String, MessageHandler> handlers, Map<String, AfterMaxRetries> afterMaxRetries,
                    Map<String, RetryPolicy> retryPolicies, RetryPolicy retryPolicy, ErrorClassifier classifier,
                    int threads, int batchSize, Duration pollMin, Duration pollMax, Duration handlerTimeout,
                    Duration stuckTimeout, Duration shutdownTimeout, DataSource dataSource, WorkerListener listener,
                    Duration heartbeatInterval) {

    WorkerConfig {
        handlers = Collections.unmodifiableMap(new LinkedHashMap<>(handlers));
        afterMaxRetries = Map.copyOf(afterMaxRetries);
        retryPolicies = Map.copyOf(retryPolicies);
    }
}
