package dev.postbox.console;

import dev.postbox.console.ConsoleClient.Res;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

import static dev.postbox.console.ConsoleClient.q;
import static dev.postbox.console.ConsoleClient.seg;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console's HTTP API over the real {@code Operations} on a real database, through a real server: every route,
 * its status codes and JSON shapes (checked against the OpenAPI document's schemas), who may do what, CSRF,
 * authentication, bad input naming its field, keys with '/', ' ' and Unicode, the bulk flow, and that no payload
 * leaves but through a reveal. Bound per database (and per server) in a few lines.
 */
abstract class ConsoleApiContract extends ConsoleFixture {

    private final SchemaCheck schemas = new SchemaCheck(OpenApiDocumentTest.document());

    private static final String ORD1_HEAD = "ORDER_CREATED:ORD-1";
    private static final String EVENTS = "api/events/outbox/";

    private Map<String, Object> ok(Res r, String schema) {
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(schemas.problems(schema, Json.parse(r.body()))).as(schema + " of " + r.body()).isEmpty();
        return r.json();
    }

    private static void error(Res r, int status, String code, String field) {
        assertThat(r.status()).as(r.toString()).isEqualTo(status);
        Map<String, Object> body = r.json();
        assertThat(body.get("error")).as(r.toString()).isEqualTo(code);
        assertThat(body.get("field")).as(r.toString()).isEqualTo(field);
        assertThat((String) body.get("message")).isNotBlank();
        assertThat(r.header("Content-Type")).startsWith("application/json");
    }

    private static String reason(String text) {
        return "{\"reason\":\"" + text + "\"}";
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object o) {
        return (List<Map<String, Object>>) o;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    private Map<String, Object> summary(String eventNo) {
        return map(ok(client.get(ADMIN, EVENTS + seg(eventNo)), "EventDetail").get("summary"));
    }

    // ------------------------------------------------------------------------------------ session, auth

    @Test
    final void meNamesTheOperatorItsPermissionsAndATokenForChanges() {
        Map<String, Object> me = ok(client.get(REVEALER, "api/me"), "Me");
        assertThat(me.get("name")).isEqualTo(REVEALER);
        assertThat(me.get("permissions")).isEqualTo(List.of("BULK", "CANCEL", "RETRY", "REVEAL_PAYLOAD", "VIEW"));
        assertThat(me.get("readOnly")).isEqualTo(false);
        assertThat((String) me.get("csrfToken")).hasSizeGreaterThan(20).isNotEqualTo(client.token(OPERATOR));
        assertThat(ok(client.get(VIEWER, "api/me"), "Me").get("permissions")).isEqualTo(List.of("VIEW"));
        assertThat(ok(readOnlyClient.get(OPERATOR, "api/me"), "Me").get("readOnly")).isEqualTo(true);
    }

    @Test
    final void everyRouteWithoutOrWithWrongCredentialsIs401WithAChallenge() {
        for (String path : List.of("", "assets/app.js", "api/me", "api/overview", "api/search?q=ORD-1", EVENTS + seg(ORD1_HEAD),
                "api/blocked", "api/audit", "api/openapi.json", "api/no-such-route")) {
            for (Map<String, String> headers : List.of(Map.<String, String>of(),
                    Map.of("Authorization", ConsoleClient.basic(OPERATOR, "wrong")),
                    Map.of("Authorization", ConsoleClient.basic("mallory", ConsoleClient.PASSWORD)),
                    Map.of("Authorization", "Bearer x"))) {
                Res r = client.send("GET", path, headers, null);
                error(r, 401, "unauthorized", null);
                assertThat(r.header("WWW-Authenticate")).startsWith("Basic realm=");
            }
        }
        Res post = client.send("POST", EVENTS + seg(ORD1_HEAD) + "/retry", Map.of("Content-Type", "application/json"),
                reason("no credentials"));
        error(post, 401, "unauthorized", null);
        assertThat(summary(ORD1_HEAD).get("status")).isEqualTo("DEAD");
    }

    @Test
    final void aChangeWithoutTheCsrfTokenOfItsOperatorIsRefusedAndChangesNothing() {
        String path = EVENTS + seg(ORD1_HEAD) + "/retry";
        Map<String, String> auth = Map.of("Authorization", ConsoleClient.basic(OPERATOR, ConsoleClient.PASSWORD),
                "Content-Type", "application/json");
        error(client.send("POST", path, auth, reason("no token")), 403, "csrf", null);
        Map<String, String> wrong = new java.util.HashMap<>(auth);
        wrong.put("X-Postbox-Csrf", client.token(OPERATOR) + "x");
        error(client.send("POST", path, wrong, reason("bad token")), 403, "csrf", null);
        wrong.put("X-Postbox-Csrf", client.token(REVEALER));
        error(client.send("POST", path, wrong, reason("another operator's token")), 403, "csrf", null);
        error(client.send("POST", "api/bulk/preview", wrong, "{}"), 403, "csrf", null);
        assertThat(summary(ORD1_HEAD).get("status")).isEqualTo("DEAD");
        assertThat(ok(client.get(ADMIN, "api/audit?eventNo=" + q(ORD1_HEAD)), "AuditPage").get("items")).isEqualTo(List.of());

        wrong.put("X-Postbox-Csrf", client.token(OPERATOR));
        assertThat(client.send("POST", path, wrong, reason("now with the token")).status()).isEqualTo(200);
    }

    // ------------------------------------------------------------------------------------ reading

    @Test
    final void overviewShowsBacklogDeadCountsBlockedAggregatesAndProblems() {
        Map<String, Object> o = ok(client.get(VIEWER, "api/overview"), "Overview");
        Map<String, Object> outbox = map(o.get("outbox"));
        assertThat(outbox.get("dead")).isEqualTo(7L);
        assertThat(outbox.get("pending")).isEqualTo(3L);
        assertThat(outbox.get("unfinished")).isEqualTo(3L);
        assertThat(map(o.get("messages")).get("dead")).isEqualTo(1L);
        assertThat(o.get("blocked")).isEqualTo(7L);
        assertThat(list(o.get("problems"))).isNotEmpty();
        assertThat(list(o.get("lastHour"))).hasSize(60);
    }

    @Test
    final void searchFindsTheEventsOfAnAggregateIdNewestFirstInKeysetPages() {
        Map<String, Object> first = ok(client.get(VIEWER, "api/search?q=ORD-1&limit=2"), "SearchPage");
        List<Map<String, Object>> items = list(first.get("items"));
        assertThat(items).extracting(m -> m.get("eventNo")).containsExactly("ORDER_SHIPPED:ORD-1", "ORDER_PAID:ORD-1");
        assertThat(first.get("nextCursor")).isNotNull();
        Map<String, Object> second = ok(client.get(VIEWER, "api/search?q=ORD-1&limit=2&after=" + q((String) first.get("nextCursor"))),
                "SearchPage");
        assertThat(list(second.get("items"))).extracting(m -> m.get("eventNo")).containsExactly(ORD1_HEAD);
        assertThat(second.get("nextCursor")).isNull();

        Map<String, Object> odd = ok(client.get(VIEWER, "api/search?kind=outbox&q=" + q("\"" + ODD_ID + "\"")), "SearchPage");
        assertThat(list(odd.get("items"))).extracting(m -> m.get("key")).containsOnly(ODD_ID).hasSize(2);
        Map<String, Object> dead = ok(client.get(VIEWER, "api/search?q=" + q("status:dead type:INVOICE_ISSUED")), "SearchPage");
        assertThat(list(dead.get("items"))).hasSize(5);
        Map<String, Object> messages = ok(client.get(VIEWER, "api/search?kind=message&q=ORD-1"), "SearchPage");
        assertThat(list(messages.get("items"))).extracting(m -> m.get("eventNo"), m -> m.get("status"), m -> m.get("kind"))
                .containsExactly(org.assertj.core.groups.Tuple.tuple("SEND_EMAIL:ORD-1", "DEAD", "MESSAGE"));
    }

    @Test
    final void badSearchInputIs400NamingTheField() {
        error(client.get(VIEWER, "api/search"), 400, "validation", "q");
        error(client.get(VIEWER, "api/search?q=" + q("status:lost")), 400, "validation", "status");
        error(client.get(VIEWER, "api/search?q=ORD-1&kind=parcel"), 400, "validation", "kind");
        error(client.get(VIEWER, "api/search?q=ORD-1&limit=lots"), 400, "validation", "limit");
        error(client.get(VIEWER, "api/search?q=ORD-1&limit=0"), 400, "validation", "limit");
        error(client.get(VIEWER, "api/search?q=ORD-1&limit=100000"), 400, "validation", "limit");
        error(client.get(VIEWER, "api/search?q=" + q("x".repeat(2001))), 400, "validation", "q");
        error(client.get(VIEWER, "api/audit?from=yesterday"), 400, "validation", "from");
        error(client.get(VIEWER, "api/audit/abc/changes"), 400, "validation", "id");
        error(client.get(VIEWER, "api/blocked?limit=-1"), 400, "validation", "limit");
    }

    @Test
    final void eventDetailOfAKeyWithSlashSpaceAndUnicodeHasItsFieldsTimelineAndSequence() {
        String eventNo = "ORDER_CREATED:" + ODD_ID;
        Map<String, Object> d = ok(client.get(VIEWER, EVENTS + seg(eventNo)), "EventDetail");
        Map<String, Object> s = map(d.get("summary"));
        assertThat(s.get("eventNo")).isEqualTo(eventNo);
        assertThat(s.get("key")).isEqualTo(ODD_ID);
        assertThat(s.get("status")).isEqualTo("DEAD");
        assertThat(s.get("failReason")).isEqualTo("schema registry: field amount must be a number");
        assertThat(d.get("headerNames")).isEqualTo(List.of("tenant"));
        assertThat(list(d.get("timeline"))).extracting(t -> t.get("kind")).contains("CREATED", "DEAD");
        assertThat(list(d.get("sequence"))).extracting(e -> e.get("eventNo")).containsExactly(eventNo, "ORDER_PAID:" + ODD_ID);
        assertThat(d.get("waitingBehind")).isEqualTo(1L);

        Map<String, Object> head = ok(client.get(VIEWER, EVENTS + seg(ORD1_HEAD)), "EventDetail");
        assertThat(list(head.get("related"))).extracting(e -> e.get("eventNo")).contains("SEND_EMAIL:ORD-1");
        assertThat(list(head.get("compensations"))).extracting(c -> c.get("actionType"), c -> c.get("status"))
                .containsExactly(org.assertj.core.groups.Tuple.tuple("TIMEOUT_CANCEL", "FAILED"));
        Map<String, Object> consumed = ok(client.get(VIEWER, EVENTS + seg("ORDER_CREATED:ORD-3")), "EventDetail");
        assertThat(list(consumed.get("consumers"))).extracting(c -> c.get("consumer")).containsExactly("inventory");
        Map<String, Object> message = ok(client.get(VIEWER, "api/events/message/" + seg("SEND_EMAIL:ORD-1")), "EventDetail");
        assertThat(map(message.get("summary")).get("failReason")).asString().contains("mailbox ORD-1 does not exist");

        error(client.get(VIEWER, EVENTS + seg("NO_SUCH:EVENT")), 404, "not_found", null);
        error(client.get(VIEWER, "api/events/parcel/" + seg(ORD1_HEAD)), 400, "validation", "kind");
    }

    @Test
    final void blockedAggregatesShowTheHeadAndWhatWaitsBehindIt() {
        Map<String, Object> page = ok(client.get(VIEWER, "api/blocked?limit=50"), "BlockedPage");
        List<Map<String, Object>> blocked = list(page.get("items"));
        assertThat(blocked).hasSize(7);
        Map<String, Object> ord1 = blocked.stream().filter(b -> b.get("aggregateId").equals("ORD-1")).findFirst().orElseThrow();
        assertThat(map(ord1.get("head")).get("eventNo")).isEqualTo(ORD1_HEAD);
        assertThat(ord1.get("waitingBehind")).isEqualTo(2L);
        assertThat(ord1.get("capped")).isEqualTo(false);
        Map<String, Object> small = ok(client.get(VIEWER, "api/blocked?limit=3"), "BlockedPage");
        assertThat(list(small.get("items"))).hasSize(3);
        Map<String, Object> rest = ok(client.get(VIEWER, "api/blocked?limit=50&after=" + q((String) small.get("nextCursor"))), "BlockedPage");
        assertThat(list(rest.get("items"))).hasSize(4);
    }

    // ------------------------------------------------------------------------------------ payloads

    @Test
    final void aPayloadLeavesOnlyThroughARevealByAnOperatorAllowedToSeeIt() {
        String path = EVENTS + seg(ORD1_HEAD) + "/payload";
        error(client.post(VIEWER, path, reason("curious")), 403, "forbidden", null);
        error(client.post(OPERATOR, path, reason("curious")), 403, "forbidden", null);
        error(client.post(REVEALER, path, "{}"), 400, "validation", "reason");
        error(client.post(REVEALER, EVENTS + seg("NO_SUCH:EVENT") + "/payload", reason("x")), 404, "not_found", null);
        for (Supplier<Res> read : List.<Supplier<Res>>of(
                () -> client.get(ADMIN, "api/overview"), () -> client.get(ADMIN, "api/search?q=ORD-1"),
                () -> client.get(ADMIN, EVENTS + seg(ORD1_HEAD)), () -> client.get(ADMIN, "api/events/message/" + seg("SEND_EMAIL:ORD-1")),
                () -> client.get(ADMIN, "api/blocked"), () -> client.get(ADMIN, "api/audit"),
                () -> client.post(ADMIN, "api/bulk/preview", "{\"kind\":\"outbox\",\"action\":\"retry\",\"query\":\"status:dead\",\"cap\":10,\"reason\":\"look\"}"))) {
            Res r = read.get();
            assertThat(r.status()).as(r.toString()).isEqualTo(200);
        }

        Map<String, Object> revealed = ok(client.post(REVEALER, path, reason("customer asks what we sent")), "RevealedPayload");
        assertThat((String) revealed.get("payload")).contains(SECRET);
        assertThat(map(revealed.get("headers"))).containsEntry("tenant", SECRET_HEADER);
        Map<String, Object> message = ok(client.post(ADMIN, "api/events/message/" + seg("SEND_EMAIL:ORD-1") + "/payload",
                reason("which mailbox")), "RevealedPayload");
        assertThat((String) message.get("payload")).contains(SECRET);

        List<Map<String, Object>> audit = list(ok(client.get(ADMIN, "api/audit?action=REVEAL_PAYLOAD&actor=" + REVEALER), "AuditPage").get("items"));
        assertThat(audit).singleElement().satisfies(a -> {
            assertThat(a.get("reason")).isEqualTo("customer asks what we sent");
            assertThat(a.get("filter")).asString().contains(ORD1_HEAD);
        });
        List<Res> leaking = new ArrayList<>();
        for (Res r : client.answers) {
            if (!r.body().contains("\"auditId\"") || !r.body().contains("\"payload\"")) {
                if (r.body().contains(SECRET) || r.body().contains(SECRET_HEADER)) {
                    leaking.add(r);
                }
            }
        }
        assertThat(leaking).as("answers that are not a reveal but carry a payload").isEmpty();
        assertThat(client.answers.stream().filter(r -> r.body().contains(SECRET))).hasSize(2);
    }

    // ------------------------------------------------------------------------------------ actions

    @Test
    final void retryNeedsTheRetryPermissionAndIsAuditedWithActorAndReason() {
        String path = EVENTS + seg(ORD1_HEAD) + "/retry";
        error(client.post(VIEWER, path, reason("viewers look only")), 403, "forbidden", null);
        error(client.post(OPERATOR, path, "{}"), 400, "validation", "reason");
        error(client.post(OPERATOR, path, reason(" ")), 400, "validation", "reason");
        error(client.post(OPERATOR, path, "{\"reason\":\"" + "r".repeat(501) + "\"}"), 400, "validation", "reason");
        error(client.post(OPERATOR, path, "{\"reason\":42}"), 400, "validation", "reason");
        assertThat(summary(ORD1_HEAD).get("status")).isEqualTo("DEAD");

        Map<String, Object> r = ok(client.post(OPERATOR, path, reason("schema registry fixed")), "ActionResult");
        assertThat(r.get("changed")).isEqualTo(1L);
        assertThat(list(r.get("changes"))).singleElement().satisfies(c -> {
            assertThat(c.get("eventNo")).isEqualTo(ORD1_HEAD);
            assertThat(c.get("fromStatus")).isEqualTo("DEAD");
            assertThat(c.get("toStatus")).isEqualTo("PENDING");
        });
        assertThat(summary(ORD1_HEAD).get("status")).isEqualTo("PENDING");
        Map<String, Object> again = ok(client.post(OPERATOR, path, reason("twice")), "ActionResult");
        assertThat(again.get("changed")).as("not DEAD any more").isEqualTo(0L);

        List<Map<String, Object>> audit = list(ok(client.get(VIEWER, "api/audit?action=RETRY&actor=" + OPERATOR), "AuditPage").get("items"));
        assertThat(audit).extracting(a -> a.get("action"), a -> a.get("reason"), a -> a.get("changed"))
                .containsExactly(org.assertj.core.groups.Tuple.tuple("RETRY", "twice", 0L),
                        org.assertj.core.groups.Tuple.tuple("RETRY", "schema registry fixed", 1L));
        Object id = audit.get(1).get("id");
        List<Map<String, Object>> changes = list(ok(client.get(VIEWER, "api/audit/" + id + "/changes"), "AuditChangePage").get("items"));
        assertThat(changes).extracting(c -> c.get("eventNo"), c -> c.get("actor")).containsExactly(
                org.assertj.core.groups.Tuple.tuple(ORD1_HEAD, OPERATOR));
        Map<String, Object> detail = ok(client.get(VIEWER, EVENTS + seg(ORD1_HEAD)), "EventDetail");
        assertThat(list(detail.get("timeline"))).extracting(t -> t.get("kind")).contains("RETRIED");
    }

    @Test
    final void cancelOfAKeyWithSlashSpaceAndUnicodeReleasesWhatWaitedBehindIt() {
        String eventNo = "ORDER_CREATED:" + ODD_ID;
        error(client.post(VIEWER, EVENTS + seg(eventNo) + "/cancel", reason("no")), 403, "forbidden", null);
        Map<String, Object> r = ok(client.post(OPERATOR, EVENTS + seg(eventNo) + "/cancel", reason("re-sent by hand")), "ActionResult");
        assertThat(r.get("changed")).isEqualTo(1L);
        assertThat(summary(eventNo).get("status")).isEqualTo("CANCELLED");
        List<Map<String, Object>> blocked = list(ok(client.get(VIEWER, "api/blocked"), "BlockedPage").get("items"));
        assertThat(blocked).extracting(b -> b.get("aggregateId")).doesNotContain(ODD_ID).hasSize(6);
        error(client.post(OPERATOR, "api/events/message/" + seg("NO_SUCH:EVENT") + "/cancel", reason("x")), 404, "not_found", null);
    }

    @Test
    final void cancellingTheWholeSequenceOfAnAggregateCancelsEveryUnfinishedEvent() {
        String path = "api/aggregates/ORDER/" + seg("ORD-1") + "/cancel";
        error(client.post(VIEWER, path, reason("no")), 403, "forbidden", null);
        Map<String, Object> r = ok(client.post(OPERATOR, path, reason("order withdrawn")), "ActionResult");
        assertThat(r.get("changed")).isEqualTo(3L);
        for (String e : List.of(ORD1_HEAD, "ORDER_PAID:ORD-1", "ORDER_SHIPPED:ORD-1")) {
            assertThat(summary(e).get("status")).isEqualTo("CANCELLED");
        }
        Map<String, Object> odd = ok(client.post(ADMIN, "api/aggregates/ORDER/" + seg(ODD_ID) + "/cancel", reason("too")), "ActionResult");
        assertThat(odd.get("changed")).isEqualTo(2L);
        assertThat(list(ok(client.get(VIEWER, "api/audit?action=CANCEL_SEQUENCE"), "AuditPage").get("items"))).hasSize(2);
    }

    @Test
    final void aFailedCompensationCanBeRetried() {
        String body = "{\"bizType\":\"ORDER\",\"bizKey\":\"ORD-1\",\"actionType\":\"TIMEOUT_CANCEL\",\"reason\":\"payments back\"}";
        error(client.post(VIEWER, "api/compensations/retry", body), 403, "forbidden", null);
        error(client.post(OPERATOR, "api/compensations/retry", "{\"bizType\":\"ORDER\",\"actionType\":\"T\",\"reason\":\"x\"}"),
                400, "validation", "bizKey");
        Map<String, Object> r = ok(client.post(OPERATOR, "api/compensations/retry", body), "ActionResult");
        assertThat(r.get("changed")).isEqualTo(1L);
        assertThat(list(ok(client.get(VIEWER, "api/audit?action=RETRY_COMPENSATION"), "AuditPage").get("items"))).hasSize(1);
    }

    @Test
    final void aReadOnlyConsoleRefusesEveryChange() {
        for (String path : List.of(EVENTS + seg(ORD1_HEAD) + "/retry", EVENTS + seg(ORD1_HEAD) + "/cancel",
                "api/aggregates/ORDER/ORD-1/cancel")) {
            error(readOnlyClient.post(ADMIN, path, reason("read-only")), 403, "read_only", null);
        }
        error(readOnlyClient.post(ADMIN, "api/compensations/retry",
                "{\"bizType\":\"ORDER\",\"bizKey\":\"ORD-1\",\"actionType\":\"TIMEOUT_CANCEL\",\"reason\":\"x\"}"), 403, "read_only", null);
        error(readOnlyClient.post(ADMIN, "api/bulk", "{\"kind\":\"outbox\",\"action\":\"retry\",\"query\":\"status:dead\",\"cap\":5,"
                + "\"reason\":\"x\",\"token\":\"t\"}"), 403, "read_only", null);
        assertThat(summary(ORD1_HEAD).get("status")).isEqualTo("DEAD");
        assertThat(ok(readOnlyClient.get(VIEWER, EVENTS + seg(ORD1_HEAD)), "EventDetail")).isNotNull();
    }

    // ------------------------------------------------------------------------------------ bulk

    private static String bulkBody(String action, String query, int cap, String reason, String token) {
        return "{\"kind\":\"outbox\",\"action\":\"" + action + "\",\"query\":\"" + query + "\",\"cap\":" + cap
                + ",\"reason\":\"" + reason + "\"" + (token == null ? "" : ",\"token\":\"" + token + "\"") + "}";
    }

    private Map<String, Object> awaitRun(String runId) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            Map<String, Object> run = ok(client.get(VIEWER, "api/bulk/" + runId), "BulkRun");
            if (!"RUNNING".equals(run.get("status"))) {
                return run;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("bulk run still running: " + run);
            }
            Thread.sleep(50); // polling the API as the UI does: there is no other signal to wait on
        }
    }

    @Test
    final void bulkRetryGoesDryRunThenTokenThenRunThenPollThenAudit() throws Exception {
        String query = "status:dead type:INVOICE_ISSUED";
        error(client.post(VIEWER, "api/bulk/preview", bulkBody("retry", query, 3, "invoices fixed", null)), 403, "forbidden", null);
        Map<String, Object> preview = ok(client.post(OPERATOR, "api/bulk/preview", bulkBody("retry", query, 3, "invoices fixed", null)), "BulkPreview");
        assertThat(preview.get("matching")).isEqualTo(3L);
        assertThat(preview.get("moreThanCap")).isEqualTo(true);
        assertThat(list(preview.get("sample"))).hasSize(3).allSatisfy(e -> assertThat(e.get("status")).isEqualTo("DEAD"));
        assertThat(preview.get("aggregates")).isEqualTo(3L);
        String token = (String) preview.get("token");

        error(client.post(OPERATOR, "api/bulk", bulkBody("retry", query, 3, "invoices fixed", null)), 400, "validation", "token");
        error(client.post(VIEWER, "api/bulk", bulkBody("retry", query, 3, "invoices fixed", token)), 403, "forbidden", null);
        Res wrong = client.post(OPERATOR, "api/bulk", bulkBody("retry", query, 3, "invoices fixed", token + "x"));
        assertThat(wrong.status()).isEqualTo(202);
        Map<String, Object> refused = awaitRun((String) wrong.json().get("runId"));
        assertThat(refused.get("status")).isEqualTo("FAILED");
        assertThat(map(refused.get("error")).get("field")).isEqualTo("token");
        Res other = client.post(REVEALER, "api/bulk", bulkBody("retry", query, 3, "invoices fixed", token));
        assertThat(awaitRun((String) other.json().get("runId")).get("status")).as("another operator's token").isEqualTo("FAILED");
        assertThat(list(ok(client.get(VIEWER, "api/search?q=" + q(query)), "SearchPage").get("items"))).hasSize(5);

        Res started = client.post(OPERATOR, "api/bulk", bulkBody("retry", query, 3, "invoices fixed", token));
        assertThat(started.status()).isEqualTo(202);
        assertThat(schemas.problems("BulkStarted", Json.parse(started.body()))).isEmpty();
        Map<String, Object> run = awaitRun((String) started.json().get("runId"));
        assertThat(run.get("status")).as(run.toString()).isEqualTo("DONE");
        assertThat(run.get("changed")).isEqualTo(3L);
        assertThat(map(run.get("result")).get("changed")).isEqualTo(3L);
        assertThat(list(ok(client.get(VIEWER, "api/search?q=" + q(query)), "SearchPage").get("items"))).hasSize(2);

        List<Map<String, Object>> audit = list(ok(client.get(VIEWER, "api/audit?action=BULK_RETRY"), "AuditPage").get("items"));
        assertThat(audit).filteredOn(a -> a.get("changed").equals(3L)).singleElement().satisfies(a -> {
            assertThat(a.get("actor")).isEqualTo(OPERATOR);
            assertThat(a.get("reason")).isEqualTo("invoices fixed");
            assertThat(a.get("cap")).isEqualTo(3L);
            assertThat(a.get("dryRunCount")).isEqualTo(3L);
            List<Map<String, Object>> changes = list(ok(client.get(VIEWER, "api/audit/" + a.get("id") + "/changes"), "AuditChangePage").get("items"));
            assertThat(changes).hasSize(3).allSatisfy(c -> assertThat(c.get("toStatus")).isEqualTo("PENDING"));
        });
        error(client.get(VIEWER, "api/bulk/no-such-run"), 404, "not_found", null);
    }

    @Test
    final void finishedBulkRunsAreKeptForTheirTimeAndAtMostTheirNumber() throws Exception {
        try (ConsoleApi small = ConsoleApi.builder(operations).authenticator(users()).clock(clock)
                .bulkConcurrency(1).maxBulkRuns(2).bulkRunsKept(java.time.Duration.ofMinutes(60)).build();
             Endpoint e = serve(small)) {
            ConsoleClient c = new ConsoleClient(e.base());
            List<String> runs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Res started = c.post(OPERATOR, "api/bulk", bulkBody("retry", "status:dead", 5, "run " + i, "not-a-token"));
                assertThat(started.status()).isEqualTo(202);
                String runId = (String) started.json().get("runId");
                long deadline = System.nanoTime() + 30_000_000_000L;
                while ("RUNNING".equals(c.get(VIEWER, "api/bulk/" + runId).json().get("status"))) {
                    assertThat(System.nanoTime()).as("run " + runId + " ends").isLessThan(deadline);
                    Thread.sleep(20); // polling the API as the UI does
                }
                runs.add(runId);
                clock.advance(java.time.Duration.ofSeconds(1));
            }
            assertThat(c.get(VIEWER, "api/bulk/" + runs.get(0)).status()).as("the oldest of 3 > maxBulkRuns").isEqualTo(404);
            assertThat(c.get(VIEWER, "api/bulk/" + runs.get(1)).status()).isEqualTo(200);
            assertThat(c.get(VIEWER, "api/bulk/" + runs.get(2)).json().get("status")).isEqualTo("FAILED");
            clock.advance(java.time.Duration.ofMinutes(61));
            assertThat(c.get(VIEWER, "api/bulk/" + runs.get(2)).status()).as("an hour after it ended").isEqualTo(404);
        }
    }

    @Test
    final void badBulkRequestsAre400NamingTheField() {
        error(client.post(OPERATOR, "api/bulk/preview", "{\"action\":\"retry\",\"query\":\"status:dead\",\"cap\":5,\"reason\":\"x\"}"),
                400, "validation", "kind");
        error(client.post(OPERATOR, "api/bulk/preview", bulkBody("delete", "status:dead", 5, "x", null)), 400, "validation", "action");
        error(client.post(OPERATOR, "api/bulk/preview", bulkBody("retry", "status:dead", 0, "x", null)), 400, "validation", "cap");
        error(client.post(OPERATOR, "api/bulk/preview", bulkBody("retry", "status:dead", 10_001, "x", null)), 400, "validation", "cap");
        error(client.post(OPERATOR, "api/bulk/preview", "{\"kind\":\"outbox\",\"action\":\"retry\",\"query\":\"status:dead\",\"cap\":1.5,\"reason\":\"x\"}"),
                400, "validation", "cap");
        error(client.post(OPERATOR, "api/bulk/preview", bulkBody("retry", "status:dead", 5, "", null)), 400, "validation", "reason");
        error(client.post(OPERATOR, "api/bulk/preview", bulkBody("retry", "", 5, "x", null)), 400, "validation", "query");
    }

    // ------------------------------------------------------------------------------------ HTTP itself

    @Test
    final void httpErrorsAreJsonWithTheirStatus() {
        error(client.get(VIEWER, "api/no-such-route"), 404, "not_found", null);
        Res notAllowed = client.send("DELETE", "api/me", Map.of("Authorization", ConsoleClient.basic(VIEWER, ConsoleClient.PASSWORD)), null);
        error(notAllowed, 405, "method_not_allowed", null);
        assertThat(notAllowed.header("Allow")).isEqualTo("GET");
        String retry = EVENTS + seg(ORD1_HEAD) + "/retry";
        error(client.post(OPERATOR, retry, "{\"reason\":\"" + "x".repeat(70_000) + "\"}"), 413, "too_large", "body");
        Res text = client.send("POST", retry, Map.of("Authorization", ConsoleClient.basic(OPERATOR, ConsoleClient.PASSWORD),
                "X-Postbox-Csrf", client.token(OPERATOR), "Content-Type", "text/plain"), "reason=x");
        error(text, 415, "unsupported_media_type", null);
        error(client.post(OPERATOR, retry, "{\"reason\":"), 400, "validation", "body");
        error(client.post(OPERATOR, retry, "[\"reason\"]"), 400, "validation", "body");
        error(client.post(OPERATOR, retry, ""), 400, "validation", "body");
        assertThat(summary(ORD1_HEAD).get("status")).isEqualTo("DEAD");
    }

    @Test
    final void aFailureInsideIs500WithAnIncidentIdAndNothingElse() throws Exception {
        String stats = postbox.tables().relayStats();
        exec("ALTER TABLE " + stats + " RENAME TO " + stats + "_gone");
        try (ConsoleApi fresh = ConsoleApi.builder(postbox.operations(dev.postbox.operations.OperationsConfig.defaults()))
                .authenticator(users()).build()) {
            try (Endpoint e = serve(fresh)) {
                Res r = new ConsoleClient(e.base()).get(VIEWER, "api/overview");
                error(r, 500, "internal", null);
                assertThat((String) r.json().get("message")).matches("internal error \\(incident [0-9a-z]+; the server log has the details\\)");
                assertThat(r.body()).doesNotContain("Exception").doesNotContain(stats).doesNotContain("\tat ");
            }
        } finally {
            exec("ALTER TABLE " + stats + "_gone RENAME TO " + stats);
        }
    }

    @Test
    final void theMountPathItselfRedirectsToTheUiWhereRelativeUrlsWork() {
        String base = client.base().toString();
        Res r = client.sendTo("GET", java.net.URI.create(base.substring(0, base.length() - 1) + "?x=1"), Map.of(), null);
        assertThat(r.status()).isEqualTo(308);
        assertThat(r.header("Location")).isEqualTo(client.base().getPath() + "?x=1");
    }

    @Test
    final void everyAnswerCarriesTheSecurityHeadersAndTheUiIsServedFromTheJar() {
        List<Res> answers = List.of(client.get(VIEWER, ""), client.get(VIEWER, "assets/app.js"), client.get(VIEWER, "api/me"),
                client.get(VIEWER, "api/no-such-route"), client.get(null, "api/me"));
        for (Res r : answers) {
            assertThat(r.header("Content-Security-Policy")).as(r.toString()).contains("script-src 'self'")
                    .contains("frame-ancestors 'none'").doesNotContain("unsafe-inline");
            assertThat(r.header("X-Content-Type-Options")).isEqualTo("nosniff");
            assertThat(r.header("X-Frame-Options")).isEqualTo("DENY");
        }
        assertThat(answers.get(2).header("Cache-Control")).isEqualTo("no-store");
        assertThat(answers.get(0).header("Content-Type")).startsWith("text/html");
        assertThat(answers.get(0).body()).contains("<script type=\"module\" src=\"assets/app.js\"></script>")
                .doesNotContain("http://").doesNotContain("https://");
        assertThat(answers.get(1).header("Content-Type")).startsWith("text/javascript");
        for (String sneaky : List.of("assets/../openapi.json", "assets/%2e%2e/%2e%2e/openapi.json", "assets/pages/../../index.html",
                "assets/no-such.js", "assets/App.JS", "assets/a/b/c/d.js")) {
            assertThat(client.get(VIEWER, sneaky).status()).as(sneaky).isIn(400, 404); // a servlet container may refuse '..' itself
        }
        Res bare = client.send("GET", "", Map.of(), null);
        assertThat(bare.status()).isEqualTo(401);
    }

    @Test
    @SuppressWarnings("unchecked")
    final void theOpenApiDocumentListsExactlyTheRoutesTheConsoleServes() {
        Res res = client.get(VIEWER, "api/openapi.json");
        assertThat(res.status()).isEqualTo(200);
        Map<String, Object> doc = res.json();
        assertThat(doc).isEqualTo(OpenApiDocumentTest.document());
        Set<String> documented = new TreeSet<>();
        ((Map<String, Object>) doc.get("paths")).forEach((path, ops) ->
                ((Map<String, Object>) ops).keySet().forEach(m -> documented.add(m.toUpperCase(java.util.Locale.ROOT) + " " + path)));
        Set<String> served = new TreeSet<>(Endpoints.apiRoutes(api.routes()));
        assertThat(documented).isEqualTo(served);
        for (String route : documented) {
            String method = route.substring(0, route.indexOf(' '));
            String path = route.substring(route.indexOf(' ') + 2).replaceAll("\\{[^}]+}", "x");
            Res r = client.send(method, path, Map.of("Authorization", ConsoleClient.basic(ADMIN, ConsoleClient.PASSWORD),
                    "X-Postbox-Csrf", client.token(ADMIN), "Content-Type", "application/json"), "{}");
            assertThat(r.status()).as(route + " is served: " + r).isNotIn(405);
            if (r.status() == 404) {
                assertThat(r.json().get("message")).as(route + " is served: " + r).asString().doesNotStartWith("no such route");
            }
        }
    }
}
