package dev.postbox.operations;

import dev.postbox.common.PostboxException;
import dev.postbox.common.ValidationException;
import dev.postbox.internal.AuditTrail;
import dev.postbox.internal.Check;
import dev.postbox.internal.Json;
import dev.postbox.internal.Settings;
import dev.postbox.internal.poll.Transactions;
import dev.postbox.query.MessageSearch;
import dev.postbox.query.MessageSearchQuery;
import dev.postbox.query.OutboxSearch;
import dev.postbox.query.Page;
import dev.postbox.query.PageRequest;
import dev.postbox.query.Queries;
import dev.postbox.query.SearchQuery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link Operations} on plain JDBC: checks the operator first, then the input, then reads or changes through the
 * package's parts ({@link OverviewReader}, {@link Details}, {@link Blocking}, {@link Actions}, {@link Bulk},
 * {@link Audit}). Logs each change at INFO with who and why, never a payload.
 */
final class JdbcOperations implements Operations {

    private static final Logger log = LoggerFactory.getLogger(JdbcOperations.class);

    private final Settings s;
    private final OperationsConfig config;
    private final Queries queries;
    final Blocking blocking;
    final OverviewReader overview;
    final Details details;
    final Audit audit;
    final Actions actions;
    final Bulk bulk;
    private final AuditTrail trail;

    JdbcOperations(Settings settings, Queries queries, OperationsConfig config) {
        this.s = settings;
        this.config = config;
        this.queries = queries;
        this.trail = new AuditTrail(settings);
        this.blocking = new Blocking(settings, config);
        this.overview = new OverviewReader(settings, config, queries, blocking);
        this.details = new Details(settings, blocking);
        this.audit = new Audit(settings);
        this.actions = new Actions(settings, details, audit, trail);
        this.bulk = new Bulk(settings, config, queries, details, blocking, trail);
    }

    // ---- who may ------------------------------------------------------------------------------------------

    private static void need(Operator who, Permission p) {
        if (who == null) {
            throw new ValidationException("operator", "is required: the operator the call acts for");
        }
        if (!who.may(p)) {
            throw new PermissionDeniedException(who.name(), p, "the operator lacks the permission "
                    + p.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '));
        }
    }

    private void change(Operator who, Permission p) {
        need(who, p);
        if (config.readOnly()) {
            throw new PermissionDeniedException(who.name(), p, "the console is read-only");
        }
    }

    private String eventNo(String eventNo) {
        return Check.required(s.dialect(), "eventNo", eventNo, 64);
    }

    private String reason(String reason) {
        return Check.required(s.dialect(), "reason", reason, 500);
    }

    private static EventKind kind(EventKind kind) {
        if (kind == null) {
            throw new ValidationException("kind", "is required (OUTBOX or MESSAGE)");
        }
        return kind;
    }

    private static PageRequest page(PageRequest page) {
        if (page == null) {
            throw new ValidationException("page", "is required (PageRequest.first(n))");
        }
        return page;
    }

    // ---- reads --------------------------------------------------------------------------------------------

    @Override
    public Overview overview(Operator who) {
        need(who, Permission.VIEW);
        return overview.get();
    }

    @Override
    public SearchPage search(EventKind kind, String query, PageRequest page, Operator who) {
        need(who, Permission.VIEW);
        kind(kind);
        page(page);
        Instant now = s.now();
        List<String> warnings = new ArrayList<>();
        List<EventSummary> items;
        String next;
        int examined;
        boolean complete;
        String driver;
        String eventNo;
        if (kind == EventKind.OUTBOX) {
            SearchQuery q = SearchQuery.parse(query, now);
            OutboxSearch.Result r = queries.outboxSearch().search(q, page);
            items = new ArrayList<>(r.items().stream().map(e -> EventTable.summary(e, false)).toList());
            next = r.nextCursor();
            examined = r.examined();
            complete = r.complete();
            driver = r.driver().name();
            eventNo = q.eventNo();
            if (r.driver() == OutboxSearch.Driver.STATUS && q.statuses().contains(dev.postbox.outbox.OutboxStatus.PUBLISHED)
                    || r.driver() == OutboxSearch.Driver.CREATED) {
                warnings.add("this search reads the events " + (r.driver() == OutboxSearch.Driver.CREATED
                        ? "created in the time range" : "published") + " newest first: an aggregate id, event_no:, trace:,"
                        + " type: or topic: finds an event with fewer pages");
            }
        } else {
            MessageSearchQuery q = MessageSearchQuery.parse(query, now);
            MessageSearch.Result r = queries.messageSearch().search(q, page);
            items = new ArrayList<>(r.items().stream().map(e -> EventTable.summary(e, false)).toList());
            next = r.nextCursor();
            examined = r.examined();
            complete = r.complete();
            driver = r.driver().name();
            eventNo = q.eventNo();
            if (r.driver() == MessageSearch.Driver.STATUS && q.statuses().contains(dev.postbox.message.MessageStatus.SUCCEEDED)
                    || r.driver() == MessageSearch.Driver.CREATED) {
                warnings.add("this search reads the events " + (r.driver() == MessageSearch.Driver.CREATED
                        ? "created in the time range" : "handled") + " newest first: a business id, event_no:, trace: or"
                        + " type: finds an event with fewer pages");
            }
        }
        if (items.isEmpty() && eventNo != null && page.after() == null) {
            Optional<EventSummary> archived = Sql.read(s, "archived event " + eventNo, c -> details.find(c, kind, eventNo))
                    .map(Details.Found::summary).filter(EventSummary::archived);
            if (archived.isPresent()) {
                items.add(archived.get());
                warnings.add(eventNo + " was archived: it is finished and read from the archive table");
            }
        }
        if (!complete) {
            warnings.add("this page stopped after reading " + examined + " index entries before it was full: the next"
                    + " page goes on where it stopped");
        }
        return new SearchPage(items, next, examined, complete, driver, warnings);
    }

    @Override
    public Optional<EventDetail> event(EventKind kind, String eventNo, Operator who) {
        need(who, Permission.VIEW);
        kind(kind);
        return details.event(kind, eventNo(eventNo));
    }

    @Override
    public Optional<RevealedPayload> payload(EventKind kind, String eventNo, String reason, Operator who) {
        need(who, Permission.REVEAL_PAYLOAD);
        kind(kind);
        eventNo(eventNo);
        reason(reason);
        Optional<Details.Found> found = Sql.read(s, "payload of " + eventNo, c -> details.find(c, kind, eventNo));
        if (found.isEmpty()) {
            return Optional.empty();
        }
        Details.Found f = found.get();
        String eventType = f.summary().eventType();
        String payload;
        Map<String, String> headers;
        try {
            payload = config.redactor().redactPayload(kind, eventType, f.payload());
            headers = f.headers() == null ? Map.of()
                    : config.redactor().redactHeaders(kind, eventType, Json.readHeaders(f.headers()));
        } catch (RuntimeException e) {
            // the redactor's message may quote the payload: only its type goes on
            throw new PostboxException("the payload redactor failed on " + kind + " event " + eventNo + " ("
                    + e.getClass().getName() + "); nothing was revealed");
        }
        Instant now = s.now();
        EventTable t = details.table(kind);
        long auditId = Transactions.inTransaction(s.dataSource(), "recording the reveal of " + eventNo, c -> {
            long id = trail.open(c, new AuditTrail.Action("REVEAL_PAYLOAD", kind.name(), eventNo, null, null, who.name(),
                    reason), "RUNNING", now);
            trail.log(c, t.table(), List.of(new AuditTrail.Row(f.summary().id(), eventNo, f.status())), "REVEAL_PAYLOAD",
                    -1, id, who.name(), reason, now);
            trail.finish(c, id, "DONE", 0, null, now);
            return id;
        });
        log.info("{} revealed the payload of {} event {} (audit entry {}): {}", who.name(), kind, eventNo, auditId, reason);
        return Optional.of(new RevealedPayload(kind, eventNo, payload, headers, auditId));
    }

    @Override
    public Page<BlockedAggregate> blockedAggregates(PageRequest page, Operator who) {
        need(who, Permission.VIEW);
        return blocking.page(page(page));
    }

    @Override
    public Page<AuditEntry> audit(AuditQuery query, PageRequest page, Operator who) {
        need(who, Permission.VIEW);
        return audit.audit(query == null ? AuditQuery.all() : query, page(page));
    }

    @Override
    public Page<AuditChange> auditChanges(long actionId, PageRequest page, Operator who) {
        need(who, Permission.VIEW);
        return audit.changes(actionId, page(page));
    }

    // ---- changes ------------------------------------------------------------------------------------------

    @Override
    public ActionResult retry(EventKind kind, String eventNo, String reason, Operator who) {
        change(who, Permission.RETRY);
        return logged(actions.one(Actions.Kind.RETRY, kind(kind), eventNo(eventNo), reason(reason), who), who, reason);
    }

    @Override
    public ActionResult cancel(EventKind kind, String eventNo, String reason, Operator who) {
        change(who, Permission.CANCEL);
        return logged(actions.one(Actions.Kind.CANCEL, kind(kind), eventNo(eventNo), reason(reason), who), who, reason);
    }

    @Override
    public ActionResult cancelSequence(String aggregateType, String aggregateId, String reason, Operator who) {
        change(who, Permission.CANCEL);
        Check.required(s.dialect(), "aggregateType", aggregateType, 64);
        Check.required(s.dialect(), "aggregateId", aggregateId, 64);
        return logged(actions.cancelSequence(aggregateType, aggregateId, reason(reason), who), who, reason);
    }

    @Override
    public ActionResult retryCompensation(String bizType, String bizKey, String actionType, String reason, Operator who) {
        change(who, Permission.RETRY);
        Check.required(s.dialect(), "bizType", bizType, 64);
        Check.required(s.dialect(), "bizKey", bizKey, 64);
        Check.required(s.dialect(), "actionType", actionType, 64);
        return logged(actions.retryCompensation(bizType, bizKey, actionType, reason(reason), who), who, reason);
    }

    @Override
    public BulkPreview preview(BulkRequest request, Operator who) {
        change(who, Permission.BULK);
        if (request == null) {
            throw new ValidationException("request", "is required");
        }
        return bulk.preview(request, who);
    }

    @Override
    public BulkResult bulk(BulkRequest request, String previewToken, BulkProgress progress, Operator who) {
        change(who, Permission.BULK);
        if (request == null) {
            throw new ValidationException("request", "is required");
        }
        change(who, request.action() == BulkRequest.Action.RETRY ? Permission.RETRY : Permission.CANCEL);
        return bulk.run(request, previewToken, progress == null ? BulkProgress.none() : progress, who);
    }

    private static ActionResult logged(ActionResult r, Operator who, String reason) {
        log.info("{} (audit entry {}), by {}: {}; {}", r.message(), r.auditId(), who.name(), reason,
                r.changed() + " changed");
        return r;
    }
}
