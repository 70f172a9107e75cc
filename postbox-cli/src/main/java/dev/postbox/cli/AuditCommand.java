package dev.postbox.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code postbox audit}: the audit log, newest first (who did what, when, why, to what, how many), filtered by
 * actor, action, event and time; {@code --changes ID} lists the events one entry changed, status before and after.
 */
@Command(name = "audit", mixinStandardHelpOptions = true,
        description = {"The audit log, newest first: who did what, when and why.",
                "--changes ID lists the events one action changed, with their status before and after."})
final class AuditCommand extends ApiCommand {

    private static final Pattern AGO = Pattern.compile("(\\d{1,6})([smhd])");

    @Option(names = "--actor", paramLabel = "NAME", description = "Only this operator's actions.")
    String actor;

    @Option(names = "--action", paramLabel = "ACTION",
            description = "Only this action: RETRY, CANCEL, CANCEL_SEQUENCE, RETRY_COMPENSATION, BULK_RETRY, BULK_CANCEL, REVEAL_PAYLOAD.")
    String action;

    @Option(names = "--event-no", paramLabel = "EVENT_NO", description = "Only actions that changed or revealed this event.")
    String eventNo;

    @Option(names = "--since", paramLabel = "WHEN",
            description = "Only actions since: a duration ago (30m, 2h, 7d), a date (2026-12-01, UTC) or an instant (2026-12-01T06:00:00Z).")
    String since;

    @Option(names = "--before", paramLabel = "WHEN", description = "Only actions before (same forms as --since).")
    String before;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "50", description = "Entries per page, 1..1000 (default 50).")
    int limit;

    @Option(names = "--after", paramLabel = "CURSOR", description = "Start after this cursor (printed under a page with more).")
    String after;

    @Option(names = "--changes", paramLabel = "ID", description = "The events audit entry ID changed.")
    Long changes;

    @Override
    int execute(ConsoleClient console) {
        if (limit < 1 || limit > 1000) {
            throw usage("--limit", "must be between 1 and 1000 (was " + limit + ")");
        }
        if (changes != null) {
            return changes(console);
        }
        Instant now = Instant.now();
        Object page = console.get("/api/audit", ConsoleClient.map("actor", actor,
                "action", action == null ? null : action.toUpperCase(Locale.ROOT), "eventNo", eventNo,
                "from", when("--since", since, now), "before", when("--before", before, now),
                "limit", limit, "after", after));
        if (json()) {
            printJson(page);
            return ExitCode.OK;
        }
        Table t = new Table("ID", "TIME", "ACTOR", "ACTION", "TARGET", "FILTER", "CHANGED", "STATUS", "REASON")
                .width(5, 40).width(8, 60);
        for (Object a : Fields.list(page, "items")) {
            String dry = Fields.text(a, "dryRunCount");
            String capped = Fields.text(a, "cap");
            t.row(Fields.text(a, "id"), Fields.time(a, "createTime"), Fields.text(a, "actor"), Fields.text(a, "action"),
                    Fields.text(a, "target"), Fields.text(a, "filter"),
                    Fields.number(a, "changed", 0) + (dry != null ? " (dry run " + dry + (capped != null ? ", cap " + capped : "") + ")" : ""),
                    Fields.text(a, "status") + (Fields.text(a, "error") != null ? ": " + Fields.text(a, "error") : ""),
                    Fields.text(a, "reason"));
        }
        if (t.isEmpty()) {
            out().println("No audit entries match.");
            out().flush();
            return ExitCode.OK;
        }
        t.print(out());
        String next = Fields.text(page, "nextCursor");
        if (next != null) {
            note("more: postbox audit ... --after " + next);
        }
        return ExitCode.OK;
    }

    private int changes(ConsoleClient console) {
        Object page = console.get("/api/audit/" + changes + "/changes", ConsoleClient.map("limit", limit, "after", after));
        if (json()) {
            printJson(page);
            return ExitCode.OK;
        }
        Table t = new Table("TIME", "EVENT_NO", "TABLE", "ACTION", "FROM", "TO", "ACTOR", "REASON").width(1, 60).width(7, 60);
        for (Object c : Fields.list(page, "items")) {
            t.row(Fields.time(c, "time"), Fields.text(c, "eventNo"), Fields.text(c, "table"), Fields.text(c, "action"),
                    Fields.text(c, "fromStatus"), Fields.text(c, "toStatus"), Fields.text(c, "actor"), Fields.text(c, "reason"));
        }
        if (t.isEmpty()) {
            out().println("Audit entry " + changes + " changed no event.");
            out().flush();
            return ExitCode.OK;
        }
        t.print(out());
        String next = Fields.text(page, "nextCursor");
        if (next != null) {
            note("more: postbox audit --changes " + changes + " --after " + next);
        }
        return ExitCode.OK;
    }

    /** {@code 2h} (that long before {@code now}), {@code 2026-12-01} (UTC midnight) or an ISO instant, as an instant. */
    static String when(String option, String text, Instant now) {
        if (text == null) {
            return null;
        }
        String s = text.trim();
        Matcher m = AGO.matcher(s.toLowerCase(Locale.ROOT));
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            Duration d = switch (m.group(2)) {
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
            return now.minus(d).toString();
        }
        try {
            return Instant.parse(s).toString();
        } catch (DateTimeParseException notInstant) {
            try {
                return LocalDate.parse(s).atStartOfDay(ZoneOffset.UTC).toInstant().toString();
            } catch (DateTimeParseException notDate) {
                throw usage(option, "expected a duration ago (30m, 2h, 7d), a date (2026-12-01) or an instant"
                        + " (2026-12-01T06:00:00Z), was '" + text + "'");
            }
        }
    }
}
