package dev.postbox.compensation;

import dev.postbox.tracing.LogContext;
import dev.postbox.tracing.PostboxTracing;
import dev.postbox.tracing.SpanRequest;
import dev.postbox.tracing.TraceSpan;

import java.sql.SQLException;
import java.util.Map;

/** The compensation job's spans. */
final class JobSpans {

    private JobSpans() {
    }

    /** What compensates one key. */
    @FunctionalInterface
    interface Work {
        CompensationResult<Void> run() throws SQLException;
    }

    /**
     * Runs {@code work} for {@code key} in its {@code process compensation {bizType}/{actionType}} span, with the log
     * context naming the key ({@code aggregate} = bizType:key); a failed or given-up compensation ends it as failed.
     */
    static CompensationResult<Void> traced(JobConfig config, String key, Work work) throws SQLException {
        TraceSpan span = process(config, key);
        try (TraceSpan.Scope current = span.makeCurrent();
             LogContext logs = LogContext.open(null, LogContext.aggregate(config.bizType(), key), span)) {
            CompensationResult<Void> r = work.run();
            span.end(r.outcome() == CompensationResult.Outcome.FAILED || r.outcome() == CompensationResult.Outcome.GAVE_UP
                    ? new IllegalStateException(String.valueOf(r.error())) : null);
            return r;
        } catch (SQLException | RuntimeException | Error e) {
            span.end(e);
            throw e;
        }
    }

    /** The span of one key (a new trace: the scan starts from business rows, which carry no context). */
    static TraceSpan process(JobConfig config, String key) {
        if (config.tracing() == PostboxTracing.NOOP) {
            return TraceSpan.NOOP;
        }
        try {
            return config.tracing().start(new SpanRequest(SpanRequest.Operation.PROCESS, SpanRequest.POSTBOX_SYSTEM,
                    "compensation " + config.name(), null, key, 1, "compensation", null, null,
                    Map.of("postbox.compensation.biz_type", config.bizType(),
                            "postbox.compensation.action_type", config.actionType(),
                            "postbox.compensation.biz_key", key)));
        } catch (RuntimeException tracerFailed) {
            return TraceSpan.NOOP; // a tracer never stops the job
        }
    }
}
