package dev.postbox.operations;

import dev.postbox.compensation.CompensationRecord;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Everything the console shows about one event, except its payload ({@link Operations#payload}).
 *
 * @param summary        the event
 * @param fields         every other column, by column name, as text (null when unset); headers are not here
 * @param headerNames    names of the outbox event's headers (values come with the payload)
 * @param timeline       created, each failed attempt, each lease takeover, each admin action, published/handled: oldest first
 * @param sequence       the outbox event's aggregate around it, in publication order (bounded); empty for message events
 * @param waitingBehind  unfinished events of its aggregate after it (outbox); capped at {@link #WAITING_CAP}
 * @param consumers      consume-log rows with this event_no: which consumer consumed it, when
 * @param related        message events of the same business key (outbox) or outbox events of it (message)
 * @param compensations  compensation log rows of the same business key
 */
public record EventDetail(EventSummary summary, Map<String, String> fields, List<String> headerNames,
                          List<TimelineEntry> timeline, List<EventSummary> sequence, long waitingBehind,
                          List<Consumption> consumers, List<EventSummary> related,
                          List<CompensationRecord> compensations) {

    /** Most unfinished events counted behind one. */
    public static final int WAITING_CAP = 10_000;

    public EventDetail {
        java.util.TreeMap<String, String> sorted = new java.util.TreeMap<>();
        fields.forEach((k, v) -> {
            if (v != null) {
                sorted.put(k, v);
            }
        });
        fields = java.util.Collections.unmodifiableMap(sorted);
        headerNames = List.copyOf(headerNames);
        timeline = List.copyOf(timeline);
        sequence = List.copyOf(sequence);
        consumers = List.copyOf(consumers);
        related = List.copyOf(related);
        compensations = List.copyOf(compensations);
    }

    /** One consumer's record of the event. */
    public record Consumption(String consumer, String status, Instant time) {
    }
}
