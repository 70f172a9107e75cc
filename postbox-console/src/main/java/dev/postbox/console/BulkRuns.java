package dev.postbox.console;

import dev.postbox.common.ValidationException;
import dev.postbox.operations.BulkRequest;
import dev.postbox.operations.BulkResult;
import dev.postbox.operations.Operations;
import dev.postbox.operations.Operator;
import dev.postbox.operations.PermissionDeniedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bulk actions the API started and a person polls: each runs {@link Operations#bulk} on a thread of a small
 * pool owned by the console (at most {@code concurrency} at once; one more is refused with 429 rather than
 * queued), and its progress and result stay readable for {@code keep} after it ended, at most
 * {@code maxRuns} of them (the oldest finished ones go first).
 */
final class BulkRuns implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ConsoleApi.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Operations operations;
    private final ThreadPoolExecutor pool;
    private final Duration keep;
    private final int maxRuns;
    private final Clock clock;
    private final Map<String, Run> runs = new ConcurrentHashMap<>();

    BulkRuns(Operations operations, int concurrency, Duration keep, int maxRuns, Clock clock) {
        this.operations = operations;
        this.keep = keep;
        this.maxRuns = maxRuns;
        this.clock = clock;
        AtomicInteger n = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(concurrency, concurrency, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "postbox-console-bulk-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
    }

    /** One run as the API shows it. */
    static final class Run {
        final String runId;
        final String actor;
        final BulkRequest request;
        final Instant started;
        volatile String status = "RUNNING";
        volatile int changed;
        volatile int examined;
        volatile int planned;
        volatile BulkResult result;
        volatile Map<String, Object> error;
        volatile Instant ended;

        Run(String runId, String actor, BulkRequest request, Instant started) {
            this.runId = runId;
            this.actor = actor;
            this.request = request;
            this.started = started;
        }

        Map<String, Object> view() {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("runId", runId);
            v.put("status", status);
            v.put("changed", changed);
            v.put("examined", examined);
            v.put("planned", planned);
            v.put("result", result);
            v.put("error", error);
            v.put("actor", actor);
            v.put("request", request);
            v.put("started", started);
            v.put("ended", ended);
            return v;
        }
    }

    Run start(BulkRequest request, String token, Operator who) {
        forgetExpired();
        makeRoom();
        Run run = new Run(HexFormat.of().formatHex(randomBytes()), who.name(), request, clock.instant());
        runs.put(run.runId, run);
        try {
            pool.execute(() -> execute(run, token, who));
        } catch (RejectedExecutionException busy) {
            runs.remove(run.runId);
            throw new ApiError(429, "busy", null, "already " + pool.getMaximumPoolSize()
                    + " bulk actions running; try again when one has finished");
        }
        return run;
    }

    private void execute(Run run, String token, Operator who) {
        try {
            BulkResult result = operations.bulk(run.request, token, (changed, examined, planned) -> {
                run.changed = changed;
                run.examined = examined;
                run.planned = planned;
            }, who);
            run.result = result;
            run.changed = result.changed();
            run.ended = clock.instant();
            run.status = "FAILED".equals(result.status()) ? "FAILED" : "DONE"; // last: a poller seeing it sees the rest
            log.debug("console: bulk {} {} by {} ended {}: {} changed, {} skipped (run {}, audit {})",
                    run.request.action(), run.request.kind(), who.name(), run.status, result.changed(), result.skipped(),
                    run.runId, result.auditId());
        } catch (ValidationException e) {
            // the API's body names the dry run's token "token"
            fail(run, "validation", e.field().equals("previewToken") ? "token" : e.field(), e.getMessage());
        } catch (PermissionDeniedException e) {
            fail(run, "forbidden", null, e.getMessage());
        } catch (RuntimeException e) {
            String incident = Incidents.next();
            log.error("console: bulk run {} by {} failed (incident {})", run.runId, who.name(), incident, e);
            fail(run, "internal", null, "the bulk action failed (incident " + incident + "; see the server log)");
        }
    }

    private void fail(Run run, String code, String field, String message) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("error", code);
        if (field != null) {
            error.put("field", field);
        }
        error.put("message", message);
        run.error = error;
        run.ended = clock.instant();
        run.status = "FAILED";
        log.info("console: bulk run {} by {} refused: {}", run.runId, run.actor, message);
    }

    Optional<Run> get(String runId) {
        forgetExpired();
        return Optional.ofNullable(runs.get(runId));
    }

    private void forgetExpired() {
        Instant horizon = clock.instant().minus(keep);
        runs.values().removeIf(r -> r.ended != null && r.ended.isBefore(horizon));
    }

    /** Room for one more run: the oldest finished ones go while maxRuns are kept. */
    private void makeRoom() {
        while (runs.size() >= maxRuns) {
            Optional<Run> oldest = runs.values().stream().filter(r -> r.ended != null)
                    .min(Comparator.comparing(r -> r.ended));
            if (oldest.isEmpty()) {
                break;
            }
            runs.remove(oldest.get().runId);
        }
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        return b;
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
