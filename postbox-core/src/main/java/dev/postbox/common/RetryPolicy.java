package dev.postbox.common;


import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long to wait before the next attempt after a failure. {@code failures} is the event's
 * {@code retry_count} after this failure (1 after the first). Implementations are thread-safe.
 */
@FunctionalInterface
public interface RetryPolicy {

    /**
     * Default base delay of {@link #exponential()}: 2 s, so that even with the lowest jitter the five
     * default retries span more than 30 s and a short broker outage never makes an event DEAD.
     */
    Duration DEFAULT_BASE = Duration.ofSeconds(2);

    /** Default cap of {@link #exponential()}. */
    Duration DEFAULT_CAP = Duration.ofMinutes(5);

    Duration delay(int failures);

    /** The default: {@code 2 s * 2^(failures-1)}, capped at 5 minutes, with equal jitter (50..100%). */
    static RetryPolicy exponential() {
        return exponential(DEFAULT_BASE, DEFAULT_CAP);
    }

    /** Exponential backoff with equal jitter: a uniform delay between half and all of the capped value. */
    static RetryPolicy exponential(Duration base, Duration cap) {
        if (base == null || base.isNegative() || base.isZero()) {
            throw new ValidationException("retryPolicy.base", "must be positive (was " + base + ")");
        }
        if (cap == null || cap.compareTo(base) < 0) {
            throw new ValidationException("retryPolicy.cap", "must be at least the base " + base + " (was " + cap + ")");
        }
        long baseMs = base.toMillis();
        long capMs = cap.toMillis();
        return failures -> {
            int exponent = Math.min(Math.max(failures, 1) - 1, 40);
            long full = baseMs >= (capMs >> exponent) ? capMs : Math.min(capMs, baseMs << exponent);
            long half = full / 2;
            return Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(full - half + 1));
        };
    }

    /** Seed 001's schedule: 2^n seconds after the n-th failure (2 s, 4 s, 8 s, ...), capped at 1 hour. */
    static RetryPolicy powersOfTwoSeconds() {
        return failures -> Duration.ofSeconds(Math.min(1L << Math.min(Math.max(failures, 1), 12), 3600));
    }

    /** Seed 000's schedule: 1 min, 5 min, 30 min, then 2 h for every later retry. */
    static RetryPolicy seed000() {
        return fixed(List.of(Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(30), Duration.ofHours(2)));
    }

    /** The n-th failure waits {@code delays[n-1]}; failures past the end repeat the last delay. */
    static RetryPolicy fixed(List<Duration> delays) {
        if (delays == null || delays.isEmpty()) {
            throw new ValidationException("retryPolicy.delays", "must name at least one delay");
        }
        List<Duration> copy = List.copyOf(delays);
        return failures -> copy.get(Math.min(Math.max(failures, 1), copy.size()) - 1);
    }
}
