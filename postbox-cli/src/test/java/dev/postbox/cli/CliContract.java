package dev.postbox.cli;

import dev.postbox.message.MessageEvent;
import dev.postbox.message.MessageStatus;
import dev.postbox.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.sql.Connection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static dev.postbox.outbox.OutboxStatus.CANCELLED;
import static dev.postbox.outbox.OutboxStatus.DEAD;
import static dev.postbox.outbox.OutboxStatus.PUBLISHED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code postbox} command against a real console over a real Postbox (see {@link ConsoleFixture}): the
 * operator's drill, JSON for scripts, exit codes, permissions, bulk actions with their dry run and confirmation.
 */
abstract class CliContract extends ConsoleFixture {

    @Test
    final void theOperatorDrillFindsReadsRetriesCancelsAndAudits() throws Exception {
        order("ORD-1001", "SKU-1", "ORDER_CREATED", "ORDER_PAID");
        order("ORD-1002", "SKU-POISON", "ORDER_CREATED", "ORDER_PAID", "ORDER_SHIPPED");
        order("ORD-1003", "SKU-GONE", "ORDER_CREATED", "ORDER_PAID");
        awaitStatus("ORDER_PAID:ORD-1001", PUBLISHED);
        awaitStatus("ORDER_CREATED:ORD-1002", DEAD);
        awaitStatus("ORDER_CREATED:ORD-1003", DEAD);

        // find it by its order number
        Cli.Result found = as("ann").run("search", "ORD-1002");
        assertThat(found.exitCode()).as(found.toString()).isZero();
        assertThat(found.out()).contains("EVENT_NO", "ORDER_CREATED:ORD-1002", "ORDER_SHIPPED:ORD-1002", "DEAD",
                "stock service: unknown SKU SKU-POISON").doesNotContain("ORD-1001");
        assertThat(line(found.out(), "ORDER_CREATED:ORD-1002")).contains("DEAD", "ORDER/ORD-1002", "orders", "3/3");

        // read why it failed
        Cli.Result shown = as("ann").run("show", "ORDER_CREATED:ORD-1002");
        assertThat(shown.exitCode()).as(shown.toString()).isZero();
        assertThat(shown.out()).contains("Timeline", "2 unfinished events of its aggregate", "ORDER_SHIPPED:ORD-1002",
                "Payload hidden").doesNotContain("4111-1111");
        assertThat(lineMatching(shown.out(), "\\d{4}-\\d\\d-\\d\\d \\S+\\s+DEAD\\s.*")).contains("unknown SKU SKU-POISON");
        assertThat(shown.out().lines().filter(l -> l.matches("\\d{4}-\\S+ \\S+\\s+ATTEMPT_FAILED\\s+" + relay.instanceId()
                + "\\s+[12]\\s+stock service: unknown SKU SKU-POISON\\s.*"))).as(shown.out()).hasSize(2);

        // fix the cause, then retry
        unknownSkus.remove("SKU-POISON");
        Cli.Result retried = as("ann").run("retry", "ORDER_CREATED:ORD-1002", "--reason", "stock service knows SKU-POISON now");
        assertThat(retried.exitCode()).as(retried.toString()).isZero();
        assertThat(retried.out()).contains("(audit entry ");
        assertThat(lineMatching(retried.out(), "ORDER_CREATED:ORD-1002 .*")).matches("ORDER_CREATED:ORD-1002\\s+\\S+\\s+DEAD\\s+PENDING");
        awaitStatus("ORDER_SHIPPED:ORD-1002", PUBLISHED);
        assertThat(published).containsSubsequence("ORDER_CREATED:ORD-1002", "ORDER_PAID:ORD-1002", "ORDER_SHIPPED:ORD-1002");

        // an aggregate whose head is DEAD, and what waits behind it
        Cli.Result blocked = as("ann").run("blocked");
        assertThat(blocked.exitCode()).as(blocked.toString()).isZero();
        assertThat(line(blocked.out(), "ORDER/ORD-1003")).contains("ORDER_CREATED:ORD-1003", "DEAD", " 1 ");
        assertThat(blocked.out()).doesNotContain("ORD-1002");

        // cancel the head: the rest flows
        Cli.Result cancelled = as("ann").run("cancel", "ORDER_CREATED:ORD-1003", "--reason", "SKU-GONE withdrawn, refunded by hand");
        assertThat(cancelled.exitCode()).as(cancelled.toString()).isZero();
        awaitStatus("ORDER_PAID:ORD-1003", PUBLISHED);
        assertThat(status("ORDER_CREATED:ORD-1003")).isEqualTo(CANCELLED);
        assertThat(published).doesNotContain("ORDER_CREATED:ORD-1003");
        assertThat(as("ann").run("blocked").out()).contains("No blocked aggregates.");

        // both actions in the audit log, with actor and reason
        Cli.Result audit = as("vic").run("audit", "--actor", "ann");
        assertThat(audit.exitCode()).as(audit.toString()).isZero();
        assertThat(line(audit.out(), "stock service knows SKU-POISON now")).contains("ann", "RETRY", "ORDER_CREATED:ORD-1002");
        assertThat(line(audit.out(), "SKU-GONE withdrawn, refunded by hand")).contains("ann", "CANCEL", "ORDER_CREATED:ORD-1003");
        assertThat(as("vic").run("audit", "--event-no", "ORDER_CREATED:ORD-1003", "--since", "1h").out())
                .contains("SKU-GONE withdrawn").doesNotContain("SKU-POISON now");
        assertThat(as("vic").run("show", "ORDER_CREATED:ORD-1002").out()).contains("RETRIED", "stock service knows SKU-POISON now");
    }

    @Test
    final void jsonOutputIsTheApisDocumentForScripts() throws Exception {
        order("ORD-2001", "SKU-POISON", "ORDER_CREATED", "ORDER_PAID");
        awaitStatus("ORDER_CREATED:ORD-2001", DEAD);

        Object search = json(as("vic").run("-o", "json", "search", "ORD-2001"));
        assertThat(Fields.list(search, "items")).extracting(e -> Fields.text(e, "eventNo"))
                .containsExactlyInAnyOrder("ORDER_CREATED:ORD-2001", "ORDER_PAID:ORD-2001");
        Object detail = json(as("vic").run("show", "ORDER_CREATED:ORD-2001", "--output", "json"));
        assertThat(Fields.text(detail, "summary.status")).isEqualTo("DEAD");
        assertThat(Fields.list(detail, "timeline")).extracting(t -> Fields.text(t, "kind"))
                .containsExactly("CREATED", "ATTEMPT_FAILED", "ATTEMPT_FAILED", "DEAD");
        Object blocked = json(as("vic").run("blocked", "-o", "json"));
        assertThat(Fields.list(blocked, "items")).singleElement().satisfies(b -> {
            assertThat(Fields.text(b, "aggregateId")).isEqualTo("ORD-2001");
            assertThat(Fields.text(b, "head.eventNo")).isEqualTo("ORDER_CREATED:ORD-2001");
            assertThat(Fields.number(b, "waitingBehind", -1)).isEqualTo(1);
        });
        Object me = json(as("vic").run("-o", "json", "whoami"));
        assertThat(Fields.text(me, "name")).isEqualTo("vic");
        assertThat(Fields.list(me, "permissions")).isEqualTo(List.of("VIEW"));
        assertThat(((Map<?, ?>) me).containsKey("csrfToken")).as("the CSRF token is not printed").isFalse();

        Object retried = json(as("ann").run("-o", "json", "retry", "ORDER_CREATED:ORD-2001", "--reason", "script"));
        assertThat(Fields.number(retried, "changed", -1)).isEqualTo(1);
        assertThat(Fields.list(retried, "changes")).singleElement().satisfies(c -> {
            assertThat(Fields.text(c, "fromStatus")).isEqualTo("DEAD");
            assertThat(Fields.text(c, "toStatus")).isEqualTo("PENDING");
        });
        Object audit = json(as("vic").run("-o", "json", "audit"));
        assertThat(Fields.list(audit, "items")).singleElement().satisfies(a -> {
            assertThat(Fields.text(a, "action")).isEqualTo("RETRY");
            assertThat(Fields.text(a, "actor")).isEqualTo("ann");
            assertThat(Fields.text(a, "reason")).isEqualTo("script");
        });
        long id = Fields.number(Fields.list(audit, "items").get(0), "id", -1);
        Object changes = json(as("vic").run("-o", "json", "audit", "--changes", String.valueOf(id)));
        assertThat(Fields.list(changes, "items")).extracting(c -> Fields.text(c, "eventNo")).containsExactly("ORDER_CREATED:ORD-2001");
    }

    @Test
    final void statusExitsThreeWhileThereIsACriticalProblemAndZeroOnWarnings() throws Exception {
        order("ORD-3001", "SKU-GONE", "ORDER_CREATED");
        awaitStatus("ORDER_CREATED:ORD-3001", DEAD);
        Await.until("status reports the DEAD event", Duration.ofSeconds(30),
                () -> Fields.number(as("vic").run("-o", "json", "status").json(), "outbox.dead", -1) == 1);
        Cli.Result warning = as("vic").run("status");
        assertThat(warning.exitCode()).as("DEAD events are a warning: " + warning).isEqualTo(ExitCode.OK);
        assertThat(warning.out()).contains("BACKLOG", "OLDEST_UNFINISHED", "DEAD_EVENTS", "Status: WARNING");
        assertThat(lineMatching(warning.out(), relay.instanceId() + " .*")).matches(relay.instanceId() + "\\s+relay\\s+\\S+\\s+yes\\s.*");
        assertThat(lineMatching(warning.out(), "outbox .*")).matches("outbox\\s+0\\s+0\\s+0\\s+1\\s+-");

        relay.close(); // nothing publishes what is written now: a critical problem
        order("ORD-3002", "SKU-1", "ORDER_CREATED");
        Await.until("status reports the unpublished event", Duration.ofSeconds(30),
                () -> as("vic").run("status").exitCode() == ExitCode.PROBLEMS);
        Cli.Result critical = as("vic").run("status");
        assertThat(critical.out()).contains("CRITICAL", "NO_LIVE_RELAY", "Status: CRITICAL (1 critical");
        assertThat(critical.out()).containsPattern("relay-cli-\\d+\\s+relay\\s+\\S+\\s+stopped");
        assertThat(lineMatching(critical.out(), "outbox .*")).matches("outbox\\s+1\\s+0\\s+0\\s+1\\s+\\S+ \\(created .*\\)");
        assertThat(as("vic").run("-o", "json", "status").exitCode()).isEqualTo(ExitCode.PROBLEMS);

        startRelay();
        awaitStatus("ORDER_CREATED:ORD-3002", PUBLISHED);
        Await.until("status without the critical problem", Duration.ofSeconds(30),
                () -> as("vic").run("status").exitCode() == ExitCode.OK);
    }

    @Test
    final void aWrongPasswordIsUnauthorizedAndAViewerMayChangeNothing() throws Exception {
        order("ORD-4001", "SKU-GONE", "ORDER_CREATED");
        awaitStatus("ORDER_CREATED:ORD-4001", DEAD);

        Cli.Result wrong = new Cli().env("POSTBOX_URL", url).env("POSTBOX_USER", "ann").env("POSTBOX_PASSWORD", "guess")
                .run("status");
        assertThat(wrong.exitCode()).as(wrong.toString()).isEqualTo(ExitCode.DENIED);
        assertThat(wrong.err()).contains("not signed in (401)", "check --user and the password");
        assertThat(wrong.out()).isEmpty();
        assertThat(new Cli().env("POSTBOX_URL", url).run("blocked").err()).contains("401", "--user or POSTBOX_USER");

        Cli.Result viewer = as("vic").run("retry", "ORDER_CREATED:ORD-4001", "--reason", "just looking");
        assertThat(viewer.exitCode()).as(viewer.toString()).isEqualTo(ExitCode.DENIED);
        assertThat(viewer.err()).contains("forbidden (403)", "vic may not retry");
        assertThat(as("vic").run("cancel", "ORDER_CREATED:ORD-4001", "--reason", "x").exitCode()).isEqualTo(ExitCode.DENIED);
        assertThat(as("vic").run("bulk", "cancel", "status:dead", "--cap", "5", "--reason", "x", "--dry-run").exitCode())
                .isEqualTo(ExitCode.DENIED);
        assertThat(status("ORDER_CREATED:ORD-4001")).isEqualTo(DEAD);

        Cli.Result operator = as("ann").run("show", "ORDER_CREATED:ORD-4001", "--reveal", "--reason", "curious");
        assertThat(operator.exitCode()).as(operator.toString()).isEqualTo(ExitCode.DENIED);
        assertThat(operator.out()).doesNotContain("4111-1111");
        assertThat(as("vic").run("audit").out()).contains("No audit entries match.");

        Cli.Result admin = as("ada").run("show", "ORDER_CREATED:ORD-4001", "--reveal", "--reason", "customer asks what was sent");
        assertThat(admin.exitCode()).as(admin.toString()).isZero();
        assertThat(admin.out()).contains("Payload (revealed", "\"card\": \"4111-1111\"");
        assertThat(line(as("vic").run("audit", "--action", "reveal_payload").out(), "customer asks what was sent"))
                .contains("ada", "REVEAL_PAYLOAD");
    }

    @Test
    final void anUnknownEventIsNotFoundAndBadInputNamesTheField() {
        Cli.Result missing = as("vic").run("show", "ORDER_CREATED:NO-SUCH-ORDER");
        assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(missing.err()).contains("not found (404)", "NO-SUCH-ORDER");
        assertThat(as("vic").run("bulk", "status", "0123456789abcdef").exitCode()).isEqualTo(ExitCode.NOT_FOUND);
        String root = url.substring(0, url.indexOf("/postbox"));
        Cli.Result noMount = as("vic").run("--url", root, "status");
        assertThat(noMount.exitCode()).as(noMount.toString()).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(noMount.err()).contains("--url must be where it is mounted");

        Cli.Result badStatus = as("vic").run("search", "status:lost");
        assertThat(badStatus.exitCode()).as(badStatus.toString()).isEqualTo(ExitCode.USAGE);
        assertThat(badStatus.err()).contains("status", "lost");
        Cli.Result longReason = as("ann").run("retry", "ORDER_CREATED:X", "--reason", "r".repeat(501));
        assertThat(longReason.exitCode()).as(longReason.toString()).isEqualTo(ExitCode.USAGE);
        assertThat(longReason.err()).contains("reason", "500");
        Cli.Result bigCap = as("ann").run("bulk", "retry", "status:dead", "--cap", "10001", "--reason", "r", "--dry-run");
        assertThat(bigCap.exitCode()).as(bigCap.toString()).isEqualTo(ExitCode.USAGE);
        assertThat(bigCap.err()).contains("cap");
    }

    @Test
    final void bulkDryRunChangesNothingAndYesChangesAtMostTheCap() throws Exception {
        for (String o : List.of("ORD-5001", "ORD-5002", "ORD-5003")) {
            order(o, "SKU-POISON", "ORDER_CREATED");
        }
        for (String o : List.of("ORD-5001", "ORD-5002", "ORD-5003")) {
            awaitStatus("ORDER_CREATED:" + o, DEAD);
        }
        Cli.Result dry = as("ann").run("bulk", "retry", "status:dead", "topic:orders", "--cap", "2", "--reason", "stock fixed", "--dry-run");
        assertThat(dry.exitCode()).as(dry.toString()).isZero();
        assertThat(dry.out()).contains("would change 2 events (more match: it stops at the cap of 2) of 2 aggregates", "more match", "Sample", "ORD-500", "Token: ", "nothing was changed");
        assertThat(List.of("ORD-5001", "ORD-5002", "ORD-5003")).allMatch(o -> status("ORDER_CREATED:" + o) == DEAD);

        unknownSkus.remove("SKU-POISON");
        Cli.Result run = as("ann").run("bulk", "retry", "status:dead", "topic:orders", "--cap", "2", "--reason", "stock fixed", "--yes");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("DONE, 2 changed");
        Await.until("two published", Duration.ofSeconds(30), () -> published.size() == 2);
        assertThat(List.of("ORD-5001", "ORD-5002", "ORD-5003")).filteredOn(o -> status("ORDER_CREATED:" + o) == DEAD).hasSize(1);

        Object rest = json(as("ann").run("-o", "json", "bulk", "retry", "status:dead", "--cap", "10", "--reason", "the rest", "--yes"));
        assertThat(Fields.number(rest, "preview.matching", -1)).isEqualTo(1);
        assertThat(Fields.text(rest, "result.status")).isEqualTo("DONE");
        assertThat(Fields.number(rest, "result.result.changed", -1)).isEqualTo(1);
        Cli.Result later = as("vic").run("bulk", "status", Fields.text(rest, "run.runId"));
        assertThat(later.out()).as(later.toString()).contains("DONE, 1 changed", "audit entry");
        Await.until("all published", Duration.ofSeconds(30), () -> published.size() == 3);
        assertThat(as("vic").run("audit", "--action", "BULK_RETRY").out()).contains("stock fixed", "the rest", "dry run");
    }

    @Test
    final void bulkWithoutYesAsksAPersonAndRefusesAScript() throws Exception {
        order("ORD-6001", "SKU-GONE", "ORDER_CREATED");
        awaitStatus("ORDER_CREATED:ORD-6001", DEAD);
        String[] cancel = {"bulk", "cancel", "ORD-6001", "status:dead", "--cap", "1", "--reason", "withdrawn"};

        Cli.Result script = as("ann").run(cancel);
        assertThat(script.exitCode()).as(script.toString()).isEqualTo(ExitCode.USAGE);
        assertThat(script.out()).contains("would change 1 event of 1 aggregate;");
        assertThat(script.err()).contains("standard input is not a terminal", "--yes");
        assertThat(status("ORDER_CREATED:ORD-6001")).isEqualTo(DEAD);

        Cli declines = as("ann").terminal("no");
        Cli.Result no = declines.run(cancel);
        assertThat(no.exitCode()).as(no.toString()).isEqualTo(ExitCode.ERROR);
        assertThat(declines.prompts()).containsExactly("Cancel 1 event? Type yes to run: ");
        assertThat(no.err()).contains("Not confirmed: nothing changed.");
        assertThat(status("ORDER_CREATED:ORD-6001")).isEqualTo(DEAD);

        Cli.Result yes = as("ann").terminal("yes").run(cancel);
        assertThat(yes.exitCode()).as(yes.toString()).isZero();
        assertThat(yes.out()).contains("DONE, 1 changed");
        assertThat(status("ORDER_CREATED:ORD-6001")).isEqualTo(CANCELLED);
    }

    @Test
    final void searchAllFollowsTheCursorUpToMax() throws Exception {
        order("ORD-7001", "SKU-1", "E1", "E2", "E3", "E4", "E5", "E6", "E7");
        awaitStatus("E7:ORD-7001", PUBLISHED);
        Cli.Result page = as("vic").run("search", "ORD-7001", "--limit", "3");
        assertThat(page.out().lines().filter(l -> l.contains(":ORD-7001"))).hasSize(3);
        assertThat(page.err()).contains("3 events", "--after ");
        Object all = json(as("vic").run("-o", "json", "search", "ORD-7001", "--limit", "3", "--all"));
        assertThat(Fields.list(all, "items")).hasSize(7);
        assertThat(Fields.number(all, "pages", -1)).isEqualTo(3);
        assertThat(Fields.text(all, "nextCursor")).isNull();
        assertThat(Fields.list(json(as("vic").run("-o", "json", "search", "ORD-7001", "--limit", "3", "--all", "--max", "5")), "items"))
                .hasSize(5);
    }

    @Test
    final void cancelSequenceCancelsEveryUnfinishedEventOfTheAggregate() throws Exception {
        order("ORD-8001", "SKU-GONE", "ORDER_CREATED", "ORDER_PAID", "ORDER_SHIPPED");
        awaitStatus("ORDER_CREATED:ORD-8001", DEAD);
        Cli.Result r = as("ann").run("cancel-sequence", "ORDER", "ORD-8001", "--reason", "order voided");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.out()).contains("ORDER_CREATED:ORD-8001", "ORDER_PAID:ORD-8001", "ORDER_SHIPPED:ORD-8001");
        for (String type : List.of("ORDER_CREATED", "ORDER_PAID", "ORDER_SHIPPED")) {
            assertThat(status(type + ":ORD-8001")).isEqualTo(CANCELLED);
        }
        assertThat(line(as("vic").run("audit").out(), "order voided")).contains("CANCEL_SEQUENCE", "ann");
    }

    @Test
    final void aFailedCompensationShowsWithItsOrderAndRunsAgain() throws Exception {
        order("ORD-9001", "SKU-1", "ORDER_CREATED");
        awaitStatus("ORDER_CREATED:ORD-9001", PUBLISHED);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            postbox.compensations().once(c, "ORDER", "ORD-9001", "TIMEOUT_CANCEL", 1, x -> {
                throw new IllegalStateException("payment service down");
            });
            c.commit();
        }
        assertThat(lineMatching(as("vic").run("show", "ORDER_CREATED:ORD-9001").out(), "ORDER\\s+ORD-9001\\s+TIMEOUT_CANCEL.*"))
                .contains("FAILED", "payment service down");

        Cli.Result r = as("ann").run("retry-compensation", "ORDER", "ORD-9001", "TIMEOUT_CANCEL", "--reason", "payments back");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.out()).contains("compensation ORDER/ORD-9001/TIMEOUT_CANCEL may run again");
        assertThat(postbox.compensations().find("ORDER", "ORD-9001", "TIMEOUT_CANCEL").orElseThrow().attempts())
                .as("its attempts start over").isZero();
        assertThat(line(as("vic").run("audit").out(), "payments back")).contains("RETRY_COMPENSATION", "ann");
        Cli.Result none = as("ann").run("retry-compensation", "ORDER", "ORD-9002", "TIMEOUT_CANCEL", "--reason", "which?");
        assertThat(none.exitCode()).as("nothing to change is no error: " + none).isZero();
        assertThat(none.out()).contains("nothing changed: no compensation ORDER/ORD-9002/TIMEOUT_CANCEL");
    }

    @Test
    final void messageEventsAreFoundShownAndRetriedWithKindMessage() throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            postbox.messages().create(c, MessageEvent.builder().eventNo("INVOICE:ORD-9101").eventType("INVOICE")
                    .biz("ORDER", "ORD-9101").payload("{\"orderNo\":\"ORD-9101\"}").build());
            c.commit();
        }
        long id = postbox.queries().messages().byEventNo("INVOICE:ORD-9101").orElseThrow().id();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertThat(postbox.messages().claim(c, id)).isTrue();
            postbox.messages().failPermanently(c, id, "invoice template missing");
            c.commit();
        }
        Cli.Result found = as("vic").run("search", "--kind", "message", "ORD-9101");
        assertThat(found.exitCode()).as(found.toString()).isZero();
        assertThat(lineMatching(found.out(), "INVOICE:ORD-9101 .*")).contains("DEAD", "ORDER/ORD-9101", "invoice template missing");
        assertThat(as("vic").run("search", "ORD-9101").out()).as("the outbox has no such event").contains("No events match");
        Cli.Result shown = as("vic").run("show", "INVOICE:ORD-9101", "--kind", "message");
        assertThat(shown.out()).contains("Event INVOICE:ORD-9101 (message)", "business key", "ORDER/ORD-9101");
        assertThat(as("vic").run("show", "INVOICE:ORD-9101").exitCode()).isEqualTo(ExitCode.NOT_FOUND);

        Cli.Result retried = as("ann").run("retry", "INVOICE:ORD-9101", "--kind", "message", "--reason", "template added");
        assertThat(retried.exitCode()).as(retried.toString()).isZero();
        assertThat(lineMatching(retried.out(), "INVOICE:ORD-9101 .*")).contains("DEAD", "PENDING");
        assertThat(postbox.queries().messages().byEventNo("INVOICE:ORD-9101").orElseThrow().status()).isEqualTo(MessageStatus.PENDING);
    }

    @Test
    final void thePasswordComesFromStdinAFileAVariableOrAPrompt(@TempDir Path dir) throws Exception {
        Cli.Result stdin = new Cli().env("POSTBOX_URL", url).stdin("vic-secret\n").run("--user", "vic", "--password-stdin", "whoami");
        assertThat(stdin.exitCode()).as(stdin.toString()).isZero();
        assertThat(stdin.out()).contains("vic at " + url.replaceAll("/$", "") + ": may view");
        Path file = Files.writeString(dir.resolve("pw"), "vic-secret\n");
        assertThat(new Cli().env("POSTBOX_URL", url).run("-u", "vic", "--password-file", file.toString(), "whoami").exitCode()).isZero();
        assertThat(new Cli().env("POSTBOX_URL", url).env("VIC_PW", "vic-secret")
                .run("-u", "vic", "--password-env", "VIC_PW", "whoami").exitCode()).isZero();
        Cli prompt = new Cli().env("POSTBOX_URL", url).terminal("vic-secret");
        assertThat(prompt.run("--user", "vic", "whoami").exitCode()).isZero();
        assertThat(prompt.prompts()).containsExactly("Password for vic: ");
    }

    /** The one line of {@code text} that contains {@code needle}. */
    static String line(String text, String needle) {
        List<String> lines = text.lines().filter(l -> l.contains(needle)).toList();
        assertThat(lines).as("lines with \"" + needle + "\" in:\n" + text).hasSize(1);
        return lines.get(0);
    }

    /** The one line of {@code text} that matches {@code regex} as a whole. */
    static String lineMatching(String text, String regex) {
        List<String> lines = text.lines().filter(l -> l.matches(regex)).toList();
        assertThat(lines).as("lines matching " + regex + " in:\n" + text).hasSize(1);
        return lines.get(0);
    }

    static Object json(Cli.Result r) {
        assertThat(r.exitCode()).as(r.toString()).isIn(ExitCode.OK, ExitCode.PROBLEMS);
        return r.json();
    }
}
