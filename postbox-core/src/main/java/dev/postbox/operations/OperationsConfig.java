package dev.postbox.operations;

import dev.postbox.internal.Check;

import java.time.Duration;
import java.util.Objects;

/**
 * How {@link Operations} behaves.
 *
 * @param overviewTtl            how long an overview is served from cache (1 s .. 10 min; default 5 s)
 * @param aliveWithin            a relay or worker whose last heartbeat is older counts as gone (default 60 s)
 * @param oldestPendingThreshold an unfinished event older than this is a problem (default 5 min)
 * @param previewTtl             how long a bulk dry run's token is accepted (default 10 min)
 * @param readOnly               refuse every change, whatever the operator's permissions
 * @param redactor               applied to every revealed payload
 */
public record OperationsConfig(Duration overviewTtl, Duration aliveWithin, Duration oldestPendingThreshold,
                               Duration previewTtl, boolean readOnly, PayloadRedactor redactor) {

    public OperationsConfig {
        Check.range("overviewTtl (ms)", (int) Math.min(Integer.MAX_VALUE, Objects.requireNonNull(overviewTtl, "overviewTtl").toMillis()), 1_000, 600_000);
        Objects.requireNonNull(aliveWithin, "aliveWithin");
        Objects.requireNonNull(oldestPendingThreshold, "oldestPendingThreshold");
        Objects.requireNonNull(previewTtl, "previewTtl");
        redactor = redactor == null ? PayloadRedactor.none() : redactor;
    }

    public static OperationsConfig defaults() {
        return new OperationsConfig(Duration.ofSeconds(5), Duration.ofSeconds(60), Duration.ofMinutes(5),
                Duration.ofMinutes(10), false, PayloadRedactor.none());
    }

    public OperationsConfig overviewTtl(Duration d) {
        return new OperationsConfig(d, aliveWithin, oldestPendingThreshold, previewTtl, readOnly, redactor);
    }

    public OperationsConfig aliveWithin(Duration d) {
        return new OperationsConfig(overviewTtl, d, oldestPendingThreshold, previewTtl, readOnly, redactor);
    }

    public OperationsConfig oldestPendingThreshold(Duration d) {
        return new OperationsConfig(overviewTtl, aliveWithin, d, previewTtl, readOnly, redactor);
    }

    public OperationsConfig previewTtl(Duration d) {
        return new OperationsConfig(overviewTtl, aliveWithin, oldestPendingThreshold, d, readOnly, redactor);
    }

    public OperationsConfig readOnly(boolean b) {
        return new OperationsConfig(overviewTtl, aliveWithin, oldestPendingThreshold, previewTtl, b, redactor);
    }

    public OperationsConfig redactor(PayloadRedactor r) {
        return new OperationsConfig(overviewTtl, aliveWithin, oldestPendingThreshold, previewTtl, readOnly, r);
    }
}
