package dev.postbox.console;

import dev.postbox.common.ValidationException;
import dev.postbox.operations.ActionResult;
import dev.postbox.operations.AuditQuery;
import dev.postbox.operations.BulkRequest;
import dev.postbox.operations.EventKind;
import dev.postbox.operations.Operations;
import dev.postbox.operations.Operator;
import dev.postbox.operations.Permission;
import dev.postbox.query.SearchQuery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The routes of the console's API, each a thin mapping of a request onto one {@link Operations} call. Which
 * operator may do what is decided by {@link Operations} (and, on a read-only console, by the pipeline first);
 * this class reads parameters, names the field of bad input and writes the JSON. {@link Operations} logs each
 * change and reveal at INFO with its actor and reason; the console adds its dry runs at INFO and repeats the
 * rest at DEBUG (never a payload).
 */
final class Endpoints {

    private static final Logger log = LoggerFactory.getLogger(ConsoleApi.class);
    static final String OPENAPI = "dev/postbox/console/openapi.json";

    private final Operations ops;
    private final boolean readOnly;
    private final Csrf csrf;
    private final BulkRuns bulkRuns;
    private final StaticFiles files = new StaticFiles();
    private final byte[] openApi;

    Endpoints(Operations ops, boolean readOnly, Csrf csrf, BulkRuns bulkRuns) {
        this.ops = ops;
        this.readOnly = readOnly;
        this.csrf = csrf;
        this.bulkRuns = bulkRuns;
        this.openApi = resource(OPENAPI);
    }

    /** Every route the console serves; {@code /api/openapi.json} documents exactly the {@code /api/} ones. */
    Routes routes() {
        return new Routes()
                .get("/api/me", this::me)
                .get("/api/overview", c -> Reply.ok(Views.overview(ops.overview(c.operator))))
                .get("/api/search", this::search)
                .get("/api/events/{kind}/{eventNo}", this::event)
                .post("/api/events/{kind}/{eventNo}/payload", this::payload)
                .change("/api/events/{kind}/{eventNo}/retry", c -> action(c, "retry"))
                .change("/api/events/{kind}/{eventNo}/cancel", c -> action(c, "cancel"))
                .get("/api/blocked", c -> Reply.ok(ops.blockedAggregates(c.page(), c.operator)))
                .change("/api/aggregates/{type}/{id}/cancel", this::cancelSequence)
                .change("/api/compensations/retry", this::retryCompensation)
                .change("/api/bulk/preview", this::preview)
                .change("/api/bulk", this::bulk)
                .get("/api/bulk/{runId}", this::bulkRun)
                .get("/api/audit", this::audit)
                .get("/api/audit/{id}/changes", this::auditChanges)
                .get("/api/openapi.json", c -> new Reply(200, Reply.JSON, openApi, "no-store"))
                .get("/", c -> file("index.html"))
                .get("/assets/*", c -> file("assets/" + c.path("*")));
    }

    private Reply me(Call c) {
        Operator who = c.operator;
        Map<String, Object> me = new LinkedHashMap<>();
        me.put("name", who.name());
        me.put("permissions", who.permissions().stream().map(Enum::name).sorted().collect(Collectors.toList()));
        me.put("readOnly", readOnly);
        me.put("csrfToken", csrf.token(who.name()));
        return Reply.ok(me);
    }

    private Reply search(Call c) {
        EventKind kind = c.query("kind") == null ? EventKind.OUTBOX : c.kind("kind", c.query("kind"));
        String q = c.query("q");
        if (q == null || q.isBlank()) {
            throw ApiError.badRequest("q", "is required: an aggregate id or qualifiers such as status:dead topic:orders");
        }
        if (q.length() > SearchQuery.MAX_LENGTH) {
            throw ApiError.badRequest("q", "must be at most " + SearchQuery.MAX_LENGTH + " characters (was "
                    + q.length() + ")");
        }
        return Reply.ok(ops.search(kind, q, c.page(), c.operator));
    }

    private Reply event(Call c) {
        EventKind kind = c.kind("kind", c.path("kind"));
        String eventNo = c.path("eventNo");
        return ops.event(kind, eventNo, c.operator).map(Reply::ok)
                .orElseThrow(() -> ApiError.notFound("no " + kind.name().toLowerCase(Locale.ROOT) + " event "
                        + Call.clip(eventNo)));
    }

    private Reply payload(Call c) {
        EventKind kind = c.kind("kind", c.path("kind"));
        String eventNo = c.path("eventNo");
        String reason = c.reason();
        var revealed = ops.payload(kind, eventNo, reason, c.operator)
                .orElseThrow(() -> ApiError.notFound("no " + kind.name().toLowerCase(Locale.ROOT) + " event "
                        + Call.clip(eventNo)));
        log.debug("console: {} revealed the payload of {} event {}: reason \"{}\" (audit {})", c.operator.name(),
                kind, Views.logText(eventNo), Views.logText(reason), revealed.auditId());
        return Reply.ok(revealed);
    }

    private Reply action(Call c, String what) {
        EventKind kind = c.kind("kind", c.path("kind"));
        String eventNo = c.path("eventNo");
        String reason = c.reason();
        ActionResult r = what.equals("retry") ? ops.retry(kind, eventNo, reason, c.operator)
                : ops.cancel(kind, eventNo, reason, c.operator);
        logAction(c, what, kind + " event " + eventNo, reason, r);
        if (r.changed() == 0 && ops.event(kind, eventNo, c.operator).isEmpty()) {
            throw ApiError.notFound(r.message()); // the refusal is in the audit log all the same
        }
        return Reply.ok(r);
    }

    private Reply cancelSequence(Call c) {
        String type = c.path("type");
        String id = c.path("id");
        String reason = c.reason();
        ActionResult r = ops.cancelSequence(type, id, reason, c.operator);
        logAction(c, "cancel sequence", "aggregate " + type + "/" + id, reason, r);
        return Reply.ok(r);
    }

    private Reply retryCompensation(Call c) {
        String bizType = c.required("bizType", 64);
        String bizKey = c.required("bizKey", 64);
        String actionType = c.required("actionType", 64);
        String reason = c.reason();
        ActionResult r = ops.retryCompensation(bizType, bizKey, actionType, reason, c.operator);
        logAction(c, "retry compensation", bizType + "/" + bizKey + "/" + actionType, reason, r);
        return Reply.ok(r);
    }

    private static void logAction(Call c, String action, String target, String reason, ActionResult r) {
        log.debug("console: {} {} {}: reason \"{}\" -> {} changed (audit {})", c.operator.name(), action,
                Views.logText(target), Views.logText(reason), r.changed(), r.auditId());
    }

    private static BulkRequest bulkRequest(Call c) {
        EventKind kind = c.kind("kind", c.string("kind"));
        String actionText = c.string("action");
        BulkRequest.Action action;
        if (actionText == null) {
            throw ApiError.badRequest("action", "is required (retry or cancel)");
        }
        try {
            action = BulkRequest.Action.valueOf(actionText.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest("action", "must be retry or cancel (was \"" + Call.clip(actionText) + "\")");
        }
        return new BulkRequest(kind, action, c.string("query"), c.integer("cap"), c.string("reason"));
    }

    private Reply preview(Call c) {
        BulkRequest request = bulkRequest(c);
        var preview = ops.preview(request, c.operator);
        log.info("console: {} previewed bulk {} {} \"{}\" (cap {}): {} match{}", c.operator.name(), request.action(),
                request.kind(), Views.logText(request.query()), request.cap(), preview.matching(),
                preview.moreThanCap() ? " (more than the cap)" : "");
        return Reply.ok(preview);
    }

    private Reply bulk(Call c) {
        BulkRequest request = bulkRequest(c);
        String token = c.string("token");
        if (token == null || token.isBlank()) {
            throw ApiError.badRequest("token", "is required: the token of a dry run (POST /api/bulk/preview) of this request");
        }
        if (!c.operator.may(Permission.BULK)) {
            throw ApiError.forbidden("forbidden", c.operator.name() + " may not run bulk actions");
        }
        var run = bulkRuns.start(request, token, c.operator);
        log.debug("console: {} started bulk {} {} \"{}\" (cap {}): reason \"{}\" (run {})", c.operator.name(),
                request.action(), request.kind(), Views.logText(request.query()), request.cap(),
                Views.logText(request.reason()), run.runId);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("runId", run.runId);
        body.put("status", run.status);
        return Reply.json(202, body);
    }

    private Reply bulkRun(Call c) {
        if (!c.operator.may(Permission.VIEW)) {
            throw ApiError.forbidden("forbidden", c.operator.name() + " may not view");
        }
        return bulkRuns.get(c.path("runId")).map(r -> Reply.ok(r.view()))
                .orElseThrow(() -> ApiError.notFound("no bulk run " + Call.clip(c.path("runId"))
                        + " (runs are kept for a while after they end)"));
    }

    private Reply audit(Call c) {
        AuditQuery q = new AuditQuery(c.query("actor"), c.query("action"), c.query("eventNo"), c.instant("from"),
                c.instant("before"));
        if (q.from() != null && q.before() != null && !q.from().isBefore(q.before())) {
            throw ApiError.badRequest("from", "must be before 'before' (from " + q.from() + ", before " + q.before() + ")");
        }
        return Reply.ok(ops.audit(q, c.page(), c.operator));
    }

    private Reply auditChanges(Call c) {
        long id;
        try {
            id = Long.parseLong(c.path("id"));
        } catch (NumberFormatException e) {
            throw ApiError.badRequest("id", "must be the number of an audit entry (was \"" + Call.clip(c.path("id")) + "\")");
        }
        return Reply.ok(ops.auditChanges(id, c.page(), c.operator));
    }

    private Reply file(String name) {
        return files.get(name).orElseThrow(() -> ApiError.notFound("no such file: " + Call.clip(name)));
    }

    /** Names the field of a validation failure from a record's constructor (e.g. BulkRequest's cap). */
    static ApiError validation(ValidationException e) {
        return new ApiError(400, "validation", e.field(), e.getMessage());
    }

    static byte[] resource(String name) {
        try (InputStream in = Endpoints.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("the console's resource " + name + " is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The API routes, as {@code METHOD template}, for the OpenAPI test. */
    static List<String> apiRoutes(List<Routes.Route> routes) {
        return routes.stream().filter(r -> r.template().startsWith("/api/"))
                .map(r -> r.method() + " " + r.template()).sorted().collect(Collectors.toList());
    }
}
