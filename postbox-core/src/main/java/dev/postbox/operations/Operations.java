package dev.postbox.operations;

import dev.postbox.query.Page;
import dev.postbox.query.PageRequest;

import java.util.Optional;

/**
 * What a person on call needs to find why an event did not arrive and fix it: the one service behind the
 * console's HTTP API, its web UI and the {@code postbox} CLI ({@code postbox.operations()}).
 *
 * <p>Every method takes the {@link Operator} it acts for and checks that operator's {@link Permission}s
 * first ({@link PermissionDeniedException} otherwise, before anything is read or written). Every change is
 * recorded in the audit log ({@code biz_admin_action}, and one {@code biz_admin_log} row per event changed)
 * in the same transaction as the change. Reads are bounded: no method reads more rows than its page, cap or
 * {@link dev.postbox.query.OutboxSearch#MAX_EXAMINED} allow, and {@link #overview} is cached. Payloads are
 * never part of a list, a detail or a log line: only {@link #payload} returns one, to an operator allowed to
 * reveal it, through the configured {@link PayloadRedactor}. Thread-safe.
 */
public interface Operations {

    /** Backlog, throughput, latency, live relays and problems; read at most once per {@link OperationsConfig#overviewTtl()}. */
    Overview overview(Operator who);

    /**
     * Events of {@code kind} matching a search ({@link dev.postbox.query.SearchQuery}'s language for the outbox,
     * {@link dev.postbox.query.MessageSearchQuery}'s for message events), newest first, keyset-paged; an
     * {@code event_no:} found nowhere live is looked up in the archive.
     */
    SearchPage search(EventKind kind, String query, PageRequest page, Operator who);

    /** Everything about one event but its payload, or empty if no live or archived event has this event_no. */
    Optional<EventDetail> event(EventKind kind, String eventNo, Operator who);

    /**
     * The payload (and headers, for an outbox event) of one event after the {@link PayloadRedactor}; needs
     * {@link Permission#REVEAL_PAYLOAD}, and each reveal is an audit entry (action {@code REVEAL_PAYLOAD}).
     */
    Optional<RevealedPayload> payload(EventKind kind, String eventNo, String reason, Operator who);

    /** Aggregates whose first unfinished outbox event is DEAD or FAILED, with how many events wait behind it. */
    Page<BlockedAggregate> blockedAggregates(PageRequest page, Operator who);

    /** DEAD or FAILED becomes PENDING with a fresh set of retries. */
    ActionResult retry(EventKind kind, String eventNo, String reason, Operator who);

    /** PENDING, FAILED or DEAD becomes CANCELLED; an outbox event's aggregate is released. */
    ActionResult cancel(EventKind kind, String eventNo, String reason, Operator who);

    /** Cancels every unfinished, unleased event of one aggregate (the whole sequence). */
    ActionResult cancelSequence(String aggregateType, String aggregateId, String reason, Operator who);

    /** Runs a FAILED compensation again: its guard row becomes claimable by the compensation job. */
    ActionResult retryCompensation(String bizType, String bizKey, String actionType, String reason, Operator who);

    /**
     * The dry run a bulk action needs: how many events it would change (up to its cap), a sample, how many
     * aggregates it touches, and a token that {@link #bulk} accepts for {@link OperationsConfig#previewTtl()}.
     * Writes nothing.
     */
    BulkPreview preview(BulkRequest request, Operator who);

    /**
     * Applies {@code request} to at most its cap of events, in chunks of one short transaction each, reporting
     * progress after each chunk. Refused without a {@code previewToken} from {@link #preview} of the same
     * request by the same operator that has not expired.
     */
    BulkResult bulk(BulkRequest request, String previewToken, BulkProgress progress, Operator who);

    /** The audit log, newest first: actions matching {@code query}. */
    Page<AuditEntry> audit(AuditQuery query, PageRequest page, Operator who);

    /** The events one audited action changed, with their status before and after. */
    Page<AuditChange> auditChanges(long actionId, PageRequest page, Operator who);
}
