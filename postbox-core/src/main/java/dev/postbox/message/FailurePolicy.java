package dev.postbox.message;

import dev.postbox.internal.Check;
import dev.postbox.spi.ErrorClassifier;

import java.time.Duration;
import java.time.Instant;

/**
 * Turns a failed attempt into what the worker records: DEAD at once when the classifier says the error
 * cannot be retried; after the last allowed attempt, DEAD or CANCELLED by the event type's policy;
 * otherwise FAILED, due again after the type's retry delay.
 */
final class FailurePolicy {

    private final WorkerConfig config;

    FailurePolicy(WorkerConfig config) {
        this.config = config;
    }

    /** The failure to record for {@code event}; {@code prefix} leads the stored reason. */
    WorkerStore.Failure failure(MessageRecord event, Throwable error, String prefix, Instant now) {
        String reason = Check.clip(prefix + error, 1000);
        int failures = event.retryCount() + 1;
        if (classify(error) == ErrorClassifier.Decision.DEAD) {
            return new WorkerStore.Failure(event, WorkerStore.Kind.DEAD, Check.clip("not retryable: " + reason, 1000), null, 1);
        }
        if (failures > event.maxRetryCount()) {
            String exhausted = "retries exhausted (" + event.maxRetryCount() + "): ";
            return config.afterMaxRetries().getOrDefault(event.eventType(), AfterMaxRetries.DEAD) == AfterMaxRetries.CANCELLED
                    ? new WorkerStore.Failure(event, WorkerStore.Kind.CANCEL,
                            Check.clip(exhausted + "cancelled by policy: " + reason, 1000), null, 1)
                    : new WorkerStore.Failure(event, WorkerStore.Kind.DEAD, Check.clip(exhausted + reason, 1000), null, 1);
        }
        Duration delay = delay(event, failures);
        return new WorkerStore.Failure(event, WorkerStore.Kind.RETRY, reason, dev.postbox.internal.Instants.plus(now, delay), 1);
    }

    private ErrorClassifier.Decision classify(Throwable error) {
        try {
            return config.classifier().classify(error);
        } catch (Throwable e) {
            log.warn("Message worker {}: error classifier failed; using the default: {}", config.instanceId(), e.toString());
            return ErrorClassifier.DEFAULT.classify(error);
        }
    }

    /** The retry policy's delay; a policy that throws or answers nothing falls back to the default, with a WARN. */
    private Duration delay(MessageRecord event, int failures) {
        try {
            Duration d = config.retryPolicies().getOrDefault(event.eventType(), config.retryPolicy()).delay(failures);
            if (d != null && !d.isNegative()) {
                return d;
            }
            log.warn("Message worker {}: retry policy for {} answered {}; using the default policy", config.instanceId(),
                    event.eventType(), d);
        } catch (Throwable e) {
            log.warn("Message worker {}: retry policy for {} failed; using the default policy: {}", config.instanceId(),
                    event.eventType(), e.toString());
        }
        return DEFAULT_RETRY.delay(failures);
    }

    private static final dev.postbox.common.RetryPolicy DEFAULT_RETRY = WorkerDefaults.RETRY_POLICY;
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(FailurePolicy.class);
}
