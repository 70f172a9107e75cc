package dev.postbox.compensation;

import dev.postbox.tracing.PostboxTracing;
import dev.postbox.tracing.SpanRequest;
import dev.postbox.tracing.TraceSpan;

import java.util.Map;

/** The compensation job's spans. */
final class JobSpans {

    private JobSpans() {
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
