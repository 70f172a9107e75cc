package dev.postbox.compensation;

import javax.sql.DataSource;
import java.time.Duration;

/**
 * A compensation job's settings as {@link CompensationJob.Builder#build()} validated them: immutable, so
 * that changing the builder later cannot change a built job.
 *
 * @param dataSource where scan and actions get their connections: the builder's, or the application's
 */
record JobConfig(String bizType, String actionType, CompensationJob.Scan scan, CompensationJob.KeyAction action,
                 int batchSize, int maxAttempts, Duration interval, DataSource dataSource,
                 dev.postbox.tracing.PostboxTracing tracing) {

    /** How logs and errors name the job: {@code bizType/actionType}. */
    String name() {
        return bizType + "/" + actionType;
    }
}
