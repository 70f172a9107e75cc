package dev.postbox.relay;

import dev.postbox.common.RetryPolicy;
import dev.postbox.internal.Check;
import dev.postbox.internal.Instants;
import dev.postbox.internal.poll.Failures;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.PublishResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The relay's outcome policy: which claimed events are not sent at all (taken over too often after
 * expired leases, or retried by hand past their retries), and what a publisher's outcome makes of an
 * event: PUBLISHED, FAILED with the retry policy's delay (or the publisher's longer retry-after), DEAD.
 */
final class Outcomes {

    private static final Logger log = LoggerFactory.getLogger(Relay.class);
    private static final RetryPolicy DEFAULT_RETRY = RetryPolicy.exponential();
    private static final int REASON_LIMIT = 1000;

    private final RelayConfig config;

    Outcomes(RelayConfig config) {
        this.config = config;
    }

    /** A claimed batch split into what is sent and what goes DEAD unsent; {@code takenOver} counts takeovers. */
    record Split(List<OutboxRecord> toSend, List<Leases.Failure> failures, int takenOver) {
    }

    /** The outcomes of a batch once published: unknown ones have their leases given back. */
    record Sorted(List<OutboxRecord> published, List<Leases.Failure> failures, List<OutboxRecord> unknown) {
    }

    /** Splits {@code claimed}; tells the listener of every takeover. */
    Split split(List<OutboxRecord> claimed) {
        List<OutboxRecord> toSend = new ArrayList<>(claimed.size());
        List<Leases.Failure> failures = new ArrayList<>();
        int takenOver = 0;
        for (OutboxRecord r : claimed) {
            if (ClaimSql.LEASE_EXPIRED.equals(r.failReason())) {
                takenOver++;
                Failures.safely(log, config.owner(), () -> config.listener().leaseExpired(r, r.leaseExpiries()));
            }
            if (r.leaseExpiries() > config.maxLeaseExpiries()) { // every relay holding it stopped: maybe it kills them
                failures.add(new Leases.Failure(r, true, "taken over " + r.leaseExpiries() + " times after its relay's"
                        + " lease expired without an outcome (limit " + config.maxLeaseExpiries() + "); the event may"
                        + " crash relays: not published again until a person retries it", null, 0));
            } else if (r.retryCount() > r.maxRetryCount()) { // retried by hand past its retries, then taken over
                failures.add(new Leases.Failure(r, true, "retries exhausted: " + ClaimSql.LEASE_EXPIRED, null, 0));
            } else {
                toSend.add(r);
            }
        }
        return new Split(toSend, failures, takenOver);
    }

    /**
     * Sorts the outcomes of {@code sent} ({@code results}, one each, as {@link Waves#publish} answers them)
     * recorded at {@code now}; {@code failures} are the split's, to which the failed sends are added.
     */
    Sorted sort(List<OutboxRecord> sent, List<PublishResult> results, List<Leases.Failure> failures, Instant now) {
        List<OutboxRecord> published = new ArrayList<>(sent.size());
        List<OutboxRecord> unknown = new ArrayList<>();
        for (int i = 0; i < sent.size(); i++) {
            OutboxRecord r = sent.get(i);
            PublishResult result = results.get(i);
            if (result == null || result == Waves.HELD) {
                unknown.add(r);
            } else if (result.kind() == PublishResult.Kind.PUBLISHED) {
                published.add(r);
            } else {
                failures.add(failure(r, result, now));
            }
        }
        return new Sorted(published, failures, unknown);
    }

    private Leases.Failure failure(OutboxRecord r, PublishResult result, Instant now) {
        String reason = Check.clip(result.reason(), REASON_LIMIT);
        if (!result.attempted()) { // held back by the publisher: not a retry, however long it lasts
            Duration delay = result.retryAfter() != null ? result.retryAfter() : delay(r, Math.max(1, r.retryCount()));
            return new Leases.Failure(r, false, reason, Instants.plus(now, delay), 0);
        }
        int failures = r.retryCount() + 1;
        if (result.kind() == PublishResult.Kind.DEAD) {
            return new Leases.Failure(r, true, reason, null, 1);
        }
        if (failures > r.maxRetryCount()) {
            return new Leases.Failure(r, true,
                    Check.clip("retries exhausted (" + r.maxRetryCount() + "): " + reason, REASON_LIMIT), null, 1);
        }
        Duration delay = delay(r, failures);
        if (result.retryAfter() != null && result.retryAfter().compareTo(delay) > 0) {
            delay = result.retryAfter();
        }
        return new Leases.Failure(r, false, reason, Instants.plus(now, delay), 1);
    }

    /** The retry policy's delay; a policy that throws or answers nothing falls back to the default, with a WARN. */
    private Duration delay(OutboxRecord r, int failures) {
        RetryPolicy policy = r.eventType() == null ? config.retryPolicy()
                : config.retryPolicies().getOrDefault(r.eventType(), config.retryPolicy());
        try {
            Duration d = policy.delay(failures);
            if (d != null && !d.isNegative()) {
                return d;
            }
            log.warn("Relay {}: retry policy for {} answered {} for failure {}; using the default policy",
                    config.instanceId(), r.eventType(), d, failures);
        } catch (Throwable e) {
            log.warn("Relay {}: retry policy for {} failed for failure {}; using the default policy: {}",
                    config.instanceId(), r.eventType(), failures, Failures.describe(e));
        }
        return DEFAULT_RETRY.delay(failures);
    }
}
