package dev.postbox.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code postbox show <eventNo>}: everything the console knows about one event but its payload: fields, header
 * names, the timeline (created, each failed attempt with relay instance and error, each admin action,
 * published), the aggregate's sequence and what waits behind it, consumers, related events, compensations.
 * {@code --reveal --reason R} also shows the payload and headers (a permission of its own, audited).
 */
@Command(name = "show", mixinStandardHelpOptions = true,
        description = {"One event: fields, timeline of attempts and actions, its aggregate's sequence, consumers.",
                "The payload only with --reveal --reason R (needs the reveal permission; audited)."})
final class ShowCommand extends ApiCommand {

    /** Columns the summary lines already show (outbox and message tables), left out of the remaining fields. */
    private static final Set<String> SHOWN_ABOVE = Set.of("event_no", "aggregate_type", "aggregate_id", "biz_type",
            "biz_id", "event_type", "publish_channel", "channel", "topic", "trace_id", "create_time", "update_time",
            "fail_reason", "retry_count", "max_retry_count", "publish_status", "event_status", "payload", "headers");

    @Parameters(index = "0", paramLabel = "EVENT_NO", description = "The event's event_no (idempotency key).")
    String eventNo;

    @Option(names = "--kind", paramLabel = "outbox|message", defaultValue = "outbox",
            description = "Outbox event (default) or message event.")
    Kind kind;

    @Option(names = "--reveal", description = "Also show the payload and headers (requires --reason).")
    boolean reveal;

    @Option(names = "--reason", paramLabel = "R", description = "Why the payload is revealed (recorded in the audit log).")
    String reason;

    @Override
    int execute(ConsoleClient console) {
        if (reveal && (reason == null || reason.isBlank())) {
            throw usage("--reason", "is required with --reveal (it goes into the audit log)");
        }
        if (!reveal && reason != null) {
            throw usage("--reason", "only goes with --reveal");
        }
        String path = "/api/events/" + kind.name() + "/" + ConsoleClient.segment(eventNo);
        Object detail = console.get(path, Map.of());
        Object revealed = reveal ? console.post(path + "/payload", ConsoleClient.map("reason", reason)) : null;
        if (json()) {
            printJson(reveal ? ConsoleClient.map("event", detail, "payload", revealed) : detail);
            return ExitCode.OK;
        }
        PrintWriter out = out();
        Object e = Fields.get(detail, "summary") != null ? Fields.get(detail, "summary") : detail;
        summary(out, e, detail);
        timeline(out, Fields.list(detail, "timeline"));
        section(out, "Sequence of " + Events.key(e) + " (publication order; * this event)", Fields.list(detail, "sequence"),
                Fields.text(e, "eventNo"));
        consumers(out, Fields.list(detail, "consumers"));
        section(out, "Related events (same business key)", Fields.list(detail, "related"), null);
        compensations(out, Fields.list(detail, "compensations"));
        if (revealed != null) {
            payload(out, revealed);
        } else {
            out.println();
            out.println("Payload hidden: postbox show " + eventNo + (kind == Kind.message ? " --kind message" : "")
                    + " --reveal --reason \"...\"");
        }
        out.flush();
        return ExitCode.OK;
    }

    private static void summary(PrintWriter out, Object e, Object detail) {
        out.println("Event " + Fields.text(e, "eventNo") + " (" + Fields.orDash(Fields.text(e, "kind")).toLowerCase() + ")");
        Table t = new Table("FIELD", "VALUE").width(1, 200);
        t.row("status", Events.status(e) + ", " + Events.tries(e).replace("/", " of ") + " attempts failed");
        t.row("type", Fields.text(e, "eventType"));
        t.row(Fields.text(e, "route") != null ? "aggregate" : "business key", Events.key(e));
        if (Fields.text(e, "route") != null) {
            t.row("topic", Fields.text(e, "route"));
        }
        t.row("channel", Fields.text(e, "channel"));
        t.row("trace", Fields.text(e, "traceId"));
        t.row("created", Fields.time(e, "createTime"));
        t.row("updated", Fields.time(e, "updateTime"));
        t.row("last error", Fields.text(e, "failReason"));
        long waiting = Fields.number(detail, "waitingBehind", 0);
        if (waiting > 0) {
            t.row("waiting behind", waiting + " unfinished event" + (waiting == 1 ? "" : "s") + " of its aggregate");
        }
        Map<?, ?> fields = Fields.obj(detail, "fields");
        fields.forEach((k, v) -> {
            if (!SHOWN_ABOVE.contains(String.valueOf(k))) {
                t.row(k, v);
            }
        });
        List<?> headers = Fields.list(detail, "headerNames");
        if (!headers.isEmpty()) {
            t.row("header names", String.join(", ", headers.stream().map(String::valueOf).toList()));
        }
        t.print(out);
    }

    private static void timeline(PrintWriter out, List<?> entries) {
        out.println();
        out.println("Timeline");
        Table t = new Table("TIME", "WHAT", "WHO", "ATTEMPT", "DETAIL", "NEXT_RETRY").width(4, 80);
        for (Object x : entries) {
            String action = Fields.text(x, "actionId");
            t.row(Fields.time(x, "time"), Fields.text(x, "kind"), Fields.text(x, "who"), Fields.text(x, "attempt"),
                    (action != null ? "[audit " + action + "] " : "") + Fields.orDash(Fields.text(x, "detail")),
                    Fields.time(x, "nextRetry"));
        }
        if (t.isEmpty()) {
            out.println("(nothing recorded)");
        } else {
            t.print(out);
        }
    }

    private static void section(PrintWriter out, String title, List<?> events, String marked) {
        if (events.isEmpty()) {
            return;
        }
        out.println();
        out.println(title);
        Events.print(out, events, "", marked);
    }

    private static void consumers(PrintWriter out, List<?> consumers) {
        out.println();
        if (consumers.isEmpty()) {
            out.println("Consumers: no consume-log row for this event_no");
            return;
        }
        out.println("Consumers");
        Table t = new Table("CONSUMER", "STATUS", "TIME");
        consumers.forEach(c -> t.row(Fields.text(c, "consumer"), Fields.text(c, "status"), Fields.time(c, "time")));
        t.print(out);
    }

    private static void compensations(PrintWriter out, List<?> rows) {
        if (rows.isEmpty()) {
            return;
        }
        out.println();
        out.println("Compensations (same business key)");
        Table t = new Table("BIZ_TYPE", "BIZ_KEY", "ACTION", "STATUS", "ATTEMPTS", "UPDATED", "LAST_ERROR").width(6, 60);
        rows.forEach(c -> t.row(Fields.text(c, "bizType"), Fields.text(c, "bizKey"), Fields.text(c, "actionType"),
                Fields.text(c, "status"), Fields.text(c, "attempts"), Fields.time(c, "updateTime"), Fields.text(c, "lastError")));
        t.print(out);
    }

    private static void payload(PrintWriter out, Object revealed) {
        out.println();
        out.println("Payload (revealed; audit entry " + Fields.orDash(Fields.text(revealed, "auditId")) + ")");
        String payload = Fields.text(revealed, "payload");
        String pretty;
        try {
            pretty = payload == null ? "null" : Json.write(Json.parse(payload));
        } catch (IllegalArgumentException notJson) {
            pretty = payload;
        }
        out.println(pretty);
        Map<?, ?> headers = Fields.obj(revealed, "headers");
        if (!headers.isEmpty()) {
            out.println();
            Table t = new Table("HEADER", "VALUE").width(1, 200);
            headers.forEach((k, v) -> t.row(k, v));
            t.print(out);
        }
    }
}
