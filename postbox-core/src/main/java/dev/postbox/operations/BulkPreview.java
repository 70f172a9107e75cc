package dev.postbox.operations;

import java.time.Instant;
import java.util.List;

/**
 * The dry run of a {@link BulkRequest}: nothing was written.
 *
 * @param matching          events the action would change now, counted up to the cap
 * @param moreThanCap       true when more than the cap match: the action would stop at the cap
 * @param sample            the first events it would change (at most {@link #SAMPLE_SIZE})
 * @param aggregates        distinct aggregates (outbox) or business keys (message) among them
 * @param token             what {@link Operations#bulk} needs to run this request
 * @param expiresAt         when the token stops being accepted
 * @param warnings          what a person should know before confirming (e.g. cancelling heads releases later events)
 */
public record BulkPreview(BulkRequest request, long matching, boolean moreThanCap, List<EventSummary> sample,
                          long aggregates, String token, Instant expiresAt, List<String> warnings) {

    public static final int SAMPLE_SIZE = 20;

    public BulkPreview {
        sample = List.copyOf(sample);
        warnings = List.copyOf(warnings);
    }
}
