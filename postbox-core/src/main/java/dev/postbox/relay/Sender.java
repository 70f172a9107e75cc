package dev.postbox.relay;

import dev.postbox.internal.poll.DaemonThreads;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.Destination;
import dev.postbox.spi.ErrorClassifier;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.tracing.LogContext;
import dev.postbox.tracing.PostboxTracing;
import dev.postbox.tracing.SpanRequest;
import dev.postbox.tracing.TraceSpan;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Hands a batch to the publisher and collects one outcome per event within the send timeout. Whatever
 * the publisher does is contained per event: an exception or {@link Error} (thrown at once or by a stage)
 * becomes RETRY or DEAD by the error classifier, a stage that is cancelled, null or completes with null
 * becomes a retryable failure, a wrong number of stages a retryable failure of every event of the call
 * (their outcomes cannot be told apart), a send still open at the deadline a retryable timeout.
 * {@code null} means "unknown" (the relay is closing) and the lease is given back.
 *
 * <p>The publisher is called on a thread of its own ({@code postbox-send-<relay>}), and the relay waits
 * for the call itself only until the deadline too: a publisher that blocks its caller (a reconnect, a
 * full client buffer, a metadata fetch) would otherwise hold the relay thread, and the events' outcome,
 * for as long as it blocks, past every send timeout. A call still running at the deadline makes every
 * event of it a retryable timeout. Calls stay sequential and in order on that one thread, so a late call
 * still runs before the next one: an event sent late is sent again (the consumer's inbox absorbs it),
 * never after a later event of its aggregate.
 */
final class Sender implements AutoCloseable {

    private final Publisher publisher;
    private final ErrorClassifier classifier;
    private final Duration sendTimeout;
    private final ExecutorService caller;
    private final PostboxTracing tracing;
    private final String relayId;

    Sender(Publisher publisher, ErrorClassifier classifier, Duration sendTimeout, String relayId) {
        this(publisher, classifier, sendTimeout, relayId, PostboxTracing.NOOP);
    }

    Sender(Publisher publisher, ErrorClassifier classifier, Duration sendTimeout, String relayId, PostboxTracing tracing) {
        this.tracing = tracing;
        this.relayId = relayId;
        this.publisher = publisher;
        this.classifier = classifier;
        this.sendTimeout = sendTimeout;
        this.caller = Executors.newSingleThreadExecutor(DaemonThreads.named("postbox-send-" + relayId));
    }

    /** Stops the publisher's calling thread; a call still running is interrupted. */
    @Override
    public void close() {
        caller.shutdownNow();
    }

    /** One outcome per event of {@code batch}, in order; null where the outcome is unknown. */
    List<PublishResult> publish(List<OutboxRecord> batch) {
        return publish(batch, System.nanoTime() + sendTimeout.toNanos());
    }

    /** As {@link #publish(List)}, with sends still open at {@code deadline} (a {@link System#nanoTime()}) timed out. */
    List<PublishResult> publish(List<OutboxRecord> batch, long deadline) {
        if (batch.isEmpty() || tracing == PostboxTracing.NOOP) {
            return send(batch, deadline, null);
        }
        TraceSpan span = sendSpan(batch);
        List<PublishResult> results;
        try {
            results = send(batch, deadline, span);
        } catch (RuntimeException | Error e) {
            span.end(e);
            throw e;
        }
        span.end(failure(results));
        return results;
    }

    /**
     * The {@code send} span of a batch: named after its destination when all its events share one, linked to the
     * creation context each event carries in its headers.
     */
    private TraceSpan sendSpan(List<OutboxRecord> batch) {
        try {
            List<Map<String, String>> links = new ArrayList<>(batch.size());
            Destination first = destination(batch.get(0));
            boolean oneDestination = true;
            boolean sameSystem = true;
            for (OutboxRecord r : batch) {
                links.add(r.headers() == null ? Map.of() : r.headers());
                Destination d = destination(r);
                oneDestination &= first.equals(d);
                sameSystem &= first.system().equals(d.system());
            }
            OutboxRecord only = batch.size() == 1 ? batch.get(0) : null;
            return tracing.start(SpanRequest.send(sameSystem ? first.system() : SpanRequest.POSTBOX_SYSTEM,
                    oneDestination ? first.name() : null, only == null ? null : only.eventNo(),
                    only == null ? null : only.aggregateId(), links, Map.of("postbox.relay.id", relayId)));
        } catch (RuntimeException tracerFailed) {
            return TraceSpan.NOOP; // a tracer never stops the relay
        }
    }

    private Destination destination(OutboxRecord r) {
        Destination d;
        try {
            d = publisher.destination(r);
        } catch (RuntimeException e) {
            d = null;
        }
        return d != null ? d : new Destination(SpanRequest.POSTBOX_SYSTEM, r.topic() != null ? r.topic() : r.channel());
    }

    /** What the span reports as the batch's error: the first failure when no event of the batch was sent. */
    private static Throwable failure(List<PublishResult> results) {
        String reason = null;
        for (PublishResult r : results) {
            if (r != null && r.kind() == PublishResult.Kind.PUBLISHED) {
                return null;
            }
            if (reason == null && r != null) {
                reason = r.reason();
            }
        }
        return reason == null ? null : new IllegalStateException(reason);
    }

    private List<PublishResult> send(List<OutboxRecord> batch, long deadline, TraceSpan span) {
        List<PublishResult> results = new ArrayList<>(batch.size());
        if (batch.isEmpty()) {
            return results;
        }
        List<CompletionStage<PublishResult>> stages;
        boolean interrupted;
        try {
            java.util.concurrent.Future<List<CompletionStage<PublishResult>>> call;
            try {
                call = caller.submit(() -> span == null ? publisher.publish(batch) : publishIn(span, batch));
            } catch (RejectedExecutionException e) { // closed
                batch.forEach(r -> results.add(null));
                return results;
            }
            stages = awaitCall(call, deadline);
            interrupted = Thread.interrupted(); // awaitCall keeps a close()'s interrupt for the stages below
        } catch (ExecutionException e) { // an Error of a publisher is this batch's failure, never the relay thread's end
            Thread.interrupted(); // a close()'s interrupt: cleared, so that the outcomes can still be recorded
            PublishResult failed = classify(e.getCause() == null ? e : e.getCause());
            batch.forEach(r -> results.add(failed));
            return results;
        } catch (TimeoutException e) {
            PublishResult late = Thread.interrupted() ? null : PublishResult.retry("publish timed out after " + sendTimeout
                    + ": the publisher's call did not return");
            batch.forEach(r -> results.add(late));
            return results;
        }
        if (stages == null || stages.size() != batch.size()) {
            PublishResult wrong = PublishResult.retry("publisher returned " + (stages == null ? "null" : stages.size())
                    + " outcomes for " + batch.size() + " events");
            batch.forEach(r -> results.add(wrong));
            return results;
        }
        for (CompletionStage<PublishResult> stage : stages) {
            if (stage == null) {
                results.add(PublishResult.retry("publisher returned a null stage"));
                continue;
            }
            CompletableFuture<PublishResult> f;
            try {
                f = stage.toCompletableFuture();
            } catch (RuntimeException e) { // a stage type that cannot be waited on
                results.add(PublishResult.retry("publisher returned a stage that cannot be awaited: " + e));
                continue;
            }
            if (interrupted && !f.isDone()) {
                results.add(null);
                continue;
            }
            try {
                PublishResult r = f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                results.add(r == null || r.kind() == null ? PublishResult.retry("publisher returned no outcome") : r);
            } catch (TimeoutException e) {
                results.add(PublishResult.retry("publish timed out after " + sendTimeout));
            } catch (CancellationException e) {
                results.add(PublishResult.retry("publish was cancelled by the publisher"));
            } catch (ExecutionException e) {
                results.add(classify(e.getCause() == null ? e : e.getCause()));
            } catch (InterruptedException e) {
                // close() is stopping the relay: the outcome is unknown, so the lease is given back (not
                // counted as a failure); the flag is cleared so that the lease can still be recorded
                interrupted = true;
                results.add(null);
            }
        }
        return results;
    }

    /** Calls the publisher with {@code span} current and its ids (and a lone event's) in the log context. */
    private List<CompletionStage<PublishResult>> publishIn(TraceSpan span, List<OutboxRecord> batch) {
        OutboxRecord only = batch.size() == 1 ? batch.get(0) : null;
        try (TraceSpan.Scope current = span.makeCurrent();
             LogContext logs = LogContext.open(only == null ? null : only.eventNo(),
                     only == null ? null : LogContext.aggregate(only.aggregateType(), only.aggregateId()), span)) {
            return publisher.publish(batch);
        }
    }

    /**
     * The publisher's answer, waiting until {@code deadline}. An interrupt (close() stopping the relay) does not
     * cut the wait short: the call already made may still return what it sent, which is then recorded; the
     * interrupt is kept set for the caller, for whom stages still open are then unknown.
     */
    private static <T> T awaitCall(java.util.concurrent.Future<T> call, long deadline)
            throws ExecutionException, TimeoutException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return call.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private PublishResult classify(Throwable error) {
        String reason = error.getClass().getSimpleName() + ": " + error.getMessage();
        ErrorClassifier.Decision decision;
        try {
            decision = classifier.classify(error);
        } catch (Throwable e) {
            decision = ErrorClassifier.DEFAULT.classify(error);
        }
        return decision == ErrorClassifier.Decision.DEAD ? PublishResult.dead(reason) : PublishResult.retry(reason);
    }
}
