package dev.postbox.micrometer;

import dev.postbox.tracing.SpanRequest;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How {@link ObservationTracing} names and tags its observations, by the OpenTelemetry messaging conventions:
 * observation (and timer) names {@code postbox.create}, {@code postbox.send} and {@code postbox.process}; span names
 * {@code "{operation} {destination}"} ({@link SpanRequest#name()}); low-cardinality key values (timer tags and span
 * attributes) {@code messaging.system}, {@code messaging.operation.type}, {@code messaging.operation.name},
 * {@code messaging.destination.name}, {@code messaging.consumer.group.name}, each always present ({@value #NONE}
 * where the span has no such attribute, so that a timer's tags never vary); high-cardinality ones (span attributes
 * only) {@code messaging.message.id} (the event number), {@code messaging.kafka.message.key} (the aggregate id),
 * {@code messaging.batch.message_count} and Postbox's own {@code postbox.*}. One instance per operation; extend it,
 * or register a {@code GlobalObservationConvention} that supports {@link PostboxObservationContext}s in the
 * registry's configuration, to change them.
 */
public class PostboxObservationConvention implements ObservationConvention<Observation.Context> {

    /** The prefix of Postbox's observation names (Spring Boot: {@code management.observations.enable.postbox=false}). */
    public static final String PREFIX = "postbox.";

    /**
     * The value of a low-cardinality key the span has no attribute for (a batch for several destinations, a span of no
     * consumer group), as Micrometer's own {@code error=none}: a timer's tag keys must not vary.
     */
    public static final String NONE = "none";

    private static final List<String> LOW_CARDINALITY = List.of("messaging.system", "messaging.operation.type",
            "messaging.operation.name", "messaging.destination.name", "messaging.consumer.group.name");

    private final SpanRequest.Operation operation;

    /** The convention of the observations of {@code operation}. */
    public PostboxObservationConvention(SpanRequest.Operation operation) {
        this.operation = Objects.requireNonNull(operation, "operation");
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof PostboxObservationContext c && c.request().operation() == operation;
    }

    /** {@code postbox.create}, {@code postbox.send} or {@code postbox.process}. */
    @Override
    public String getName() {
        return PREFIX + operation.type();
    }

    @Override
    public String getContextualName(Observation.Context context) {
        return request(context).name();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(Observation.Context context) {
        return keyValues(request(context), true);
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(Observation.Context context) {
        return keyValues(request(context), false);
    }

    private static KeyValues keyValues(SpanRequest request, boolean low) {
        Map<String, Object> attributes = request.attributes();
        List<KeyValue> values = new ArrayList<>();
        if (low) {
            for (String key : LOW_CARDINALITY) { // every key on every observation: one tag set per timer name
                Object value = attributes.get(key);
                values.add(KeyValue.of(key, value == null ? NONE : String.valueOf(value)));
            }
            return KeyValues.of(values);
        }
        for (Map.Entry<String, Object> a : attributes.entrySet()) {
            if (!LOW_CARDINALITY.contains(a.getKey())) {
                values.add(KeyValue.of(a.getKey(), String.valueOf(a.getValue())));
            }
        }
        return KeyValues.of(values);
    }

    private static SpanRequest request(Observation.Context context) {
        return ((PostboxObservationContext) context).request();
    }
}
