package dev.postbox.operations;

import dev.postbox.common.ValidationException;
import dev.postbox.internal.AuditTrail;
import dev.postbox.internal.Check;
import dev.postbox.internal.Settings;
import dev.postbox.internal.poll.ReadCommitted;
import dev.postbox.internal.poll.Transactions;
import dev.postbox.message.MessageStatus;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.query.MessageSearch;
import dev.postbox.query.MessageSearchQuery;
import dev.postbox.query.OutboxSearch;
import dev.postbox.query.PageRequest;
import dev.postbox.query.Queries;
import dev.postbox.query.SearchQuery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Bulk actions on everything a search matches. The search is narrowed to the statuses the action applies to
 * (RETRY: FAILED, DEAD; CANCEL: PENDING, FAILED, DEAD; a PUBLISHING or PROCESSING event is never touched), so every
 * match is an event the action would change. The dry run walks the search's keyset pages and counts up to the cap
 * (stopping at cap + 1), keeps a sample, counts the aggregates, and hands out a {@link PreviewToken}. The action
 * itself walks the same pages, newest first, and changes each page's events in a short transaction of its own
 * (locked, guarded by their status, logged), reporting progress after each, until it changed the cap. Both stop after
 * reading {@value #MAX_EXAMINED} index entries, however much may still match.
 */
final class Bulk {

    private static final Logger log = LoggerFactory.getLogger(Bulk.class);

    /** Events one chunk of a bulk action changes in one transaction. */
    static final int CHUNK = 500;
    /** Index entries a dry run or a bulk action reads at most. */
    static final int MAX_EXAMINED = 20 * OutboxSearch.MAX_EXAMINED;

    private final Settings s;
    private final OperationsConfig config;
    private final Queries queries;
    private final Details details;
    private final Blocking blocking;
    private final AuditTrail trail;
    /** The application's data source at READ COMMITTED where the database locks index gaps ({@link ReadCommitted}). */
    private final DataSource readCommitted;
    private final PreviewToken tokens = new PreviewToken();

    Bulk(Settings settings, OperationsConfig config, Queries queries, Details details, Blocking blocking,
         AuditTrail trail) {
        this.s = settings;
        this.config = config;
        this.queries = queries;
        this.details = details;
        this.blocking = blocking;
        this.trail = trail;
        this.readCommitted = ReadCommitted.of(settings.dialect(), settings.dataSource());
    }

    private static Actions.Kind kind(BulkRequest r) {
        return r.action() == BulkRequest.Action.RETRY ? Actions.Kind.RETRY : Actions.Kind.CANCEL;
    }

    /** One page of matches, as a list shows them. */
    private record Hits(List<EventSummary> items, String next, int examined) {
    }

    /** The request's search, narrowed to the statuses its action applies to. */
    private Object narrowed(BulkRequest r, Instant now) {
        Set<Integer> applies = kind(r).from;
        if (r.kind() == EventKind.OUTBOX) {
            SearchQuery q = SearchQuery.parse(r.query(), now);
            Set<OutboxStatus> st = EnumSet.noneOf(OutboxStatus.class);
            for (int code : applies) {
                OutboxStatus status = OutboxStatus.of(code);
                if (q.statuses().isEmpty() || q.statuses().contains(status)) {
                    st.add(status);
                }
            }
            refuseEmpty(r, st.isEmpty(), q.statuses().toString());
            return new SearchQuery(q.eventNo(), q.aggregateType(), q.aggregateId(), q.traceId(), q.eventType(), st,
                    q.topic(), q.channel(), q.createdFrom(), q.createdBefore(), q.errorText(), q.minAttempts());
        }
        MessageSearchQuery q = MessageSearchQuery.parse(r.query(), now);
        Set<MessageStatus> st = EnumSet.noneOf(MessageStatus.class);
        for (int code : applies) {
            MessageStatus status = MessageStatus.of(code);
            if (q.statuses().isEmpty() || q.statuses().contains(status)) {
                st.add(status);
            }
        }
        refuseEmpty(r, st.isEmpty(), q.statuses().toString());
        return new MessageSearchQuery(q.eventNo(), q.bizType(), q.bizId(), q.traceId(), q.eventType(), st,
                q.createdFrom(), q.createdBefore(), q.errorText(), q.minAttempts());
    }

    private void refuseEmpty(BulkRequest r, boolean empty, String statuses) {
        if (empty) {
            EventTable t = details.table(r.kind());
            throw new ValidationException("query", "status " + statuses + " matches nothing " + r.action() + " applies to ("
                    + kind(r).from.stream().sorted().map(t::statusName).collect(Collectors.joining(", ")) + ")");
        }
    }

    private Hits page(BulkRequest r, Object q, String after, int limit) {
        PageRequest p = new PageRequest(limit, after);
        if (r.kind() == EventKind.OUTBOX) {
            OutboxSearch.Result found = queries.outboxSearch().search((SearchQuery) q, p);
            return new Hits(found.items().stream().map(e -> EventTable.summary(e, false)).toList(), found.nextCursor(),
                    found.examined());
        }
        MessageSearch.Result found = queries.messageSearch().search((MessageSearchQuery) q, p);
        return new Hits(found.items().stream().map(e -> EventTable.summary(e, false)).toList(), found.nextCursor(),
                found.examined());
    }

    BulkPreview preview(BulkRequest r, Operator who) {
        Instant now = s.now();
        Object q = narrowed(r, now);
        long matching = 0;
        List<EventSummary> sample = new ArrayList<>();
        Set<String> aggregates = new HashSet<>();
        String after = null;
        int examined = 0;
        boolean stoppedEarly = false;
        do {
            Hits hits = page(r, q, after, CHUNK);
            examined += hits.examined();
            for (EventSummary e : hits.items()) {
                if (++matching > r.cap()) {
                    break;
                }
                aggregates.add(e.keyType() + "/" + e.key());
                if (sample.size() < BulkPreview.SAMPLE_SIZE) {
                    sample.add(e);
                }
            }
            after = hits.next();
            if (after != null && examined >= MAX_EXAMINED && matching <= r.cap()) {
                stoppedEarly = true;
                break;
            }
        } while (after != null && matching <= r.cap());
        boolean more = matching > r.cap();
        long counted = Math.min(matching, r.cap());
        Instant expires = now.plus(config.previewTtl());
        return new BulkPreview(r, counted, more, sample, aggregates.size(), tokens.issue(r, who.name(), expires, counted),
                expires, warnings(r, sample, more, stoppedEarly, examined));
    }

    private List<String> warnings(BulkRequest r, List<EventSummary> sample, boolean more, boolean stoppedEarly,
                                  int examined) {
        List<String> w = new ArrayList<>();
        EventTable t = details.table(r.kind());
        w.add("only " + kind(r).from.stream().sorted().map(t::statusName).collect(Collectors.joining(", ")) + " events"
                + " are changed; events being " + (r.kind() == EventKind.OUTBOX ? "published (PUBLISHING)"
                : "handled (PROCESSING)") + " right now are left alone");
        if (more) {
            w.add("more than " + r.cap() + " events match: the action stops after " + r.cap() + " (newest first)");
        }
        if (stoppedEarly) {
            w.add("the dry run stopped after reading " + examined + " index entries: more events may match than counted");
        }
        if (r.kind() == EventKind.OUTBOX && config.ordered()) {
            int heads = 0;
            long released = 0;
            for (EventSummary e : sample) {
                if ("PENDING".equals(e.status())) {
                    continue;
                }
                long[] behind = Sql.read(s, "bulk dry run", c -> blocking.isHead(c, e)
                        ? blocking.waitingBehind(c, e.keyType(), e.key(), e.id()) : null);
                if (behind != null) {
                    heads++;
                    released += behind[0];
                }
            }
            if (heads > 0) {
                w.add(heads + " of the " + sample.size() + " events of the sample hold their aggregate back (" + released
                        + " events wait behind them): " + (r.action() == BulkRequest.Action.CANCEL
                        ? "cancelling them releases those events to the relay at once"
                        : "once retried and published, the events behind them follow"));
            }
        }
        return w;
    }

    BulkResult run(BulkRequest r, String token, BulkProgress progress, Operator who) {
        Instant started = s.now();
        long dryRun = tokens.verify(token, r, who.name(), started);
        Object q = narrowed(r, started);
        Actions.Kind k = kind(r);
        EventTable t = details.table(r.kind());
        AuditTrail.Change change = k.on(t);
        String lockSql = "SELECT id, event_no, " + t.statusColumn() + " FROM " + t.table()
                + s.dialect().forceIndex("PRIMARY") + " WHERE id IN (%s) AND deleted = 0 AND "
                + t.statusColumn() + " IN (" + Sql.codes(k.from) + ") FOR UPDATE";
        AuditTrail.Action audited = new AuditTrail.Action("BULK_" + r.action().name(), r.kind().name(), r.query(), dryRun,
                r.cap(), who.name(), r.reason());
        long actionId = Transactions.inTransaction(s.dataSource(), "bulk " + r.action() + " by " + who.name(),
                c -> trail.open(c, audited, "RUNNING", started));
        log.info("Bulk {} of {} events ({}) started by {} (audit entry {}): {}", r.action(), r.kind(), r.query(),
                who.name(), actionId, r.reason());
        int planned = (int) Math.min(dryRun, r.cap());
        int changed = 0;
        int lockSkipped = 0;
        int examined = 0;
        String after = null;
        try {
            do {
                Hits hits = page(r, q, after, Math.min(CHUNK, r.cap() - changed));
                examined += hits.examined();
                after = hits.next();
                if (!hits.items().isEmpty()) {
                    List<Object> ids = hits.items().stream().map(e -> (Object) e.id()).toList();
                    Instant now = s.now();
                    int n = Transactions.inTransaction(readCommitted, "bulk " + r.action() + " chunk", c -> {
                        List<AuditTrail.Row> locked = trail.lock(c, lockSql.formatted(Sql.marks(ids.size())), ids);
                        return trail.apply(c, change, locked, actionId, who.name(), r.reason(), now).size();
                    });
                    changed += n;
                    lockSkipped += ids.size() - n;
                }
                progress.progress(changed, examined, planned);
            } while (after != null && changed < r.cap() && examined < MAX_EXAMINED);
            Instant finished = s.now();
            int done = changed;
            Transactions.inTransaction(s.dataSource(), "finishing bulk action " + actionId, c -> {
                trail.finish(c, actionId, "DONE", done, null, finished);
                return null;
            });
            log.info("Bulk {} (audit entry {}) done: {} changed", r.action(), actionId, changed);
            return new BulkResult(actionId, changed, Math.max(lockSkipped, planned - changed), "DONE", null, started,
                    finished);
        } catch (RuntimeException e) {
            String error = Check.storable(e.getClass().getSimpleName() + ": " + e.getMessage(), 1000);
            Instant finished = s.now();
            int done = changed;
            try {
                Transactions.inTransaction(s.dataSource(), "recording the failure of bulk action " + actionId, c -> {
                    trail.finish(c, actionId, "FAILED", done, error, finished);
                    return null;
                });
            } catch (RuntimeException recording) {
                e.addSuppressed(recording);
                throw e;
            }
            log.warn("Bulk {} (audit entry {}) failed after {} changed: {}", r.action(), actionId, changed, error);
            return new BulkResult(actionId, changed, lockSkipped, "FAILED", error, started, finished);
        }
    }
}
