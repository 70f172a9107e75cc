package dev.postbox.kafka;

import dev.postbox.spi.PublishResult;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns a producer failure into RETRY or DEAD. The producer cannot tell a missing topic from an
 * unreachable broker (both end in a metadata timeout), so on such a timeout the admin client asks the
 * cluster: "no such topic" is DEAD, anything else (no answer included) is RETRY. One answer per topic is
 * shared by the failures of the following second, so a batch of a missing topic costs one look-up.
 */
final class KafkaErrors implements AutoCloseable {

    private static final long REUSE_NANOS = 1_000_000_000L;

    private record Look(CompletableFuture<Boolean> missing, long startedNanos) {
    }

    private final Admin admin;
    private final Duration timeout;
    private final Map<String, Look> looks = new ConcurrentHashMap<>();

    KafkaErrors(Admin admin, Duration timeout) {
        this.admin = admin;
        this.timeout = timeout;
    }

    /** The outcome of a send of {@code topic} that failed with {@code error}. */
    CompletionStage<PublishResult> outcome(String topic, Throwable error) {
        PublishResult known = classify(error);
        if (known.kind() == PublishResult.Kind.DEAD || !isMissingMetadata(error)) {
            return CompletableFuture.completedFuture(known);
        }
        return topicMissing(topic).thenApply(missing -> missing
                ? PublishResult.dead("topic '" + topic + "' does not exist (and the broker does not create it): " + reason(error))
                : known);
    }

    static PublishResult classify(Throwable error) {
        String reason = reason(error);
        if (error instanceof InvalidTopicException || error instanceof RecordTooLargeException
                || error instanceof RecordBatchTooLargeException || error instanceof SerializationException
                || error instanceof AuthorizationException || error instanceof InvalidRecordException) {
            return PublishResult.dead(reason);
        }
        return PublishResult.retry(reason);
    }

    private static boolean isMissingMetadata(Throwable error) {
        return error instanceof UnknownTopicOrPartitionException
                || error instanceof TimeoutException && String.valueOf(error.getMessage()).contains("not present in metadata");
    }

    private CompletableFuture<Boolean> topicMissing(String topic) {
        long now = System.nanoTime();
        Look look = looks.compute(topic, (t, old) -> old != null && now - old.startedNanos() < REUSE_NANOS
                ? old : new Look(describe(t), now));
        return look.missing();
    }

    private CompletableFuture<Boolean> describe(String topic) {
        CompletableFuture<Boolean> missing = new CompletableFuture<>();
        try {
            admin.describeTopics(List.of(topic), new DescribeTopicsOptions().timeoutMs((int) timeout.toMillis()))
                    .allTopicNames().whenComplete((names, e) -> missing.complete(unwrap(e) instanceof UnknownTopicOrPartitionException));
        } catch (RuntimeException e) {
            missing.complete(false);
        }
        return missing;
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    static String reason(Throwable error) {
        return error.getClass().getSimpleName() + ": " + error.getMessage();
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(2));
    }
}
