package dev.postbox.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code postbox blocked}: aggregates whose head (first unfinished outbox event) is DEAD or FAILED, so nothing
 * after it is published, with the head and how many events wait behind it. What to do next is printed under
 * the table: retry the head, cancel it (the rest flows), or cancel the whole sequence.
 */
@Command(name = "blocked", mixinStandardHelpOptions = true,
        description = "Aggregates stopped by a DEAD or FAILED head event, and how many events wait behind each.")
final class BlockedCommand extends ApiCommand {

    @Option(names = "--limit", paramLabel = "N", defaultValue = "50", description = "Aggregates per page, 1..1000 (default 50).")
    int limit;

    @Option(names = "--after", paramLabel = "CURSOR", description = "Start after this cursor (printed under a page with more).")
    String after;

    @Override
    int execute(ConsoleClient console) {
        if (limit < 1 || limit > 1000) {
            throw usage("--limit", "must be between 1 and 1000 (was " + limit + ")");
        }
        Object page = console.get("/api/blocked", ConsoleClient.map("limit", limit, "after", after));
        if (json()) {
            printJson(page);
            return ExitCode.OK;
        }
        Table t = new Table("AGGREGATE", "HEAD_EVENT_NO", "STATUS", "FAILED", "WAITING", "SINCE", "LAST_ERROR")
                .width(0, 40).width(1, 48).width(6, 60);
        for (Object b : Fields.list(page, "items")) {
            Object head = Fields.get(b, "head");
            t.row(Fields.text(b, "aggregateType") + "/" + Fields.text(b, "aggregateId"), Fields.text(head, "eventNo"),
                    Fields.text(head, "status"), Events.tries(head),
                    Fields.number(b, "waitingBehind", 0) + (Fields.flag(b, "capped") ? "+" : ""),
                    Fields.time(head, "updateTime"), Fields.text(head, "failReason"));
        }
        if (t.isEmpty()) {
            out().println("No blocked aggregates.");
            out().flush();
            return ExitCode.OK;
        }
        t.print(out());
        String next = Fields.text(page, "nextCursor");
        note(t.size() + " blocked aggregate" + (t.size() == 1 ? "" : "s")
                + (next == null ? "" : "; more: postbox blocked --after " + next));
        note("next: postbox retry <HEAD_EVENT_NO> --reason R | postbox cancel <HEAD_EVENT_NO> --reason R (the rest flows)"
                + " | postbox cancel-sequence <TYPE> <ID> --reason R");
        return ExitCode.OK;
    }
}
