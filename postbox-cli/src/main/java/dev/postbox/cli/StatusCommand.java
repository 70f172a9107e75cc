package dev.postbox.cli;

import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * {@code postbox status}: the overview (backlog by status, DEAD, the oldest unfinished event's age, the last
 * hour, relays and workers, problems). Exits with {@link ExitCode#PROBLEMS} when the console reports a
 * CRITICAL problem, so it can run as a monitoring check; warnings alone exit 0.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Backlog, DEAD events, the oldest unfinished event's age, relays and problems.",
                "Exit code 3 when there is a CRITICAL problem (no live relay, DEAD events, ...), else 0."})
final class StatusCommand extends ApiCommand {

    @Override
    int execute(ConsoleClient console) {
        Object overview = console.get("/api/overview", Map.of());
        long critical = Fields.list(overview, "problems").stream()
                .filter(p -> "CRITICAL".equalsIgnoreCase(Fields.text(p, "severity"))).count();
        if (json()) {
            printJson(overview);
        } else {
            print(console, overview, critical);
        }
        return critical > 0 ? ExitCode.PROBLEMS : ExitCode.OK;
    }

    private void print(ConsoleClient console, Object o, long critical) {
        PrintWriter out = out();
        Instant readAt = Fields.instant(o, "readAt");
        out.println("Console " + console.base() + ", read " + Fields.time(readAt));
        out.println();
        Table backlog = new Table("BACKLOG", "PENDING", "IN_PROGRESS", "FAILED", "DEAD", "OLDEST_UNFINISHED");
        for (String table : new String[] {"outbox", "messages"}) {
            Object b = Fields.get(o, table);
            if (b == null) {
                continue;
            }
            Instant oldest = Fields.instant(b, "oldestUnfinishedTime");
            // the console's own age (its clock, not this machine's), else from the times it read
            long ageMillis = Fields.number(b, "oldestUnfinishedAgeMillis", -1);
            Instant at = Fields.instant(b, "readAt") != null ? Fields.instant(b, "readAt") : readAt;
            Duration age = ageMillis >= 0 ? Duration.ofMillis(ageMillis)
                    : oldest == null ? null : Duration.between(oldest, at != null ? at : Instant.now());
            String oldestText = oldest == null ? "-" : Fields.age(age) + " (created " + Fields.time(oldest) + ")";
            backlog.row(table, Fields.number(b, "pending", 0), Fields.number(b, "inProgress", 0),
                    Fields.number(b, "failed", 0), Fields.number(b, "dead", 0), oldestText);
        }
        backlog.width(5, 60).print(out);
        out.println();
        long blocked = Fields.number(o, "blocked", 0);
        out.println("Blocked aggregates: " + blocked + (blocked > 0 ? " (postbox blocked)" : ""));
        lastHour(out, o);
        out.println();
        Table instances = new Table("INSTANCE", "ROLE", "HOST", "ALIVE", "LAST_SEEN", "LEASES", "JOBS");
        for (Object i : Fields.list(o, "instances")) {
            Instant seen = Fields.instant(i, "lastSeenTime");
            instances.row(Fields.text(i, "instance"), Fields.text(i, "role"), Fields.text(i, "host"),
                    Fields.flag(i, "alive") ? "yes" : Fields.instant(i, "stoppedTime") != null ? "stopped" : "NO",
                    seen == null ? "-" : Fields.age(Duration.between(seen, readAt != null ? readAt : Instant.now())) + " ago",
                    Fields.number(i, "leasesHeld", 0), String.join(",", Fields.list(i, "jobs").stream().map(String::valueOf).toList()));
        }
        if (instances.isEmpty()) {
            out.println("Relays and workers: none seen in the last day");
        } else {
            instances.print(out);
        }
        out.println();
        Table problems = new Table("SEVERITY", "PROBLEM", "WHAT").width(2, 100);
        for (Object p : Fields.list(o, "problems")) {
            problems.row(Fields.text(p, "severity"), Fields.text(p, "code"), Fields.text(p, "message"));
        }
        if (problems.isEmpty()) {
            out.println("Problems: none");
        } else {
            problems.print(out);
        }
        out.println();
        long warnings = problems.size() - critical;
        out.println("Status: " + (critical > 0 ? "CRITICAL" : warnings > 0 ? "WARNING" : "OK")
                + (problems.isEmpty() ? "" : " (" + critical + " critical, " + warnings + " warning"
                + (warnings == 1 ? "" : "s") + ")"));
        out.flush();
    }

    private static void lastHour(PrintWriter out, Object o) {
        long published = 0;
        long handled = 0;
        long failed = 0;
        long dead = 0;
        long p99 = -1;
        for (Object m : Fields.list(o, "lastHour")) {
            published += Fields.number(m, "published", 0);
            handled += Fields.number(m, "handled", 0);
            failed += Fields.number(m, "failed", 0);
            dead += Fields.number(m, "dead", 0);
            p99 = Math.max(p99, Fields.number(m, "p99Millis", -1));
        }
        out.println("Last hour: " + published + " published, " + handled + " handled, " + failed + " failed attempts, "
                + dead + " dead" + (p99 >= 0 ? "; latency p99 " + p99 + " ms (worst minute)" : ""));
    }
}
