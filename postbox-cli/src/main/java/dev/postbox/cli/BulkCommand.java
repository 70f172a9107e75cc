package dev.postbox.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * {@code postbox bulk retry|cancel <query...> --cap N --reason R}: an action on every event matching a search,
 * always after a dry run. {@code --dry-run} only previews (count, sample, aggregates, warnings, the token);
 * {@code --yes} previews and runs with that preview's token, printing progress until the run ends; with
 * neither, the preview is shown and a person at a terminal confirms by typing {@code yes} (without a terminal
 * nothing runs: exit {@link ExitCode#USAGE}). {@code bulk status <RUN_ID>} shows a run.
 */
@Command(name = "bulk", mixinStandardHelpOptions = true,
        description = {"Retry or cancel every event matching a search (a dry run first, at most --cap).",
                "  postbox bulk retry status:dead topic:orders --cap 500 --reason \"broker fixed\" --dry-run",
                "  postbox bulk retry status:dead topic:orders --cap 500 --reason \"broker fixed\" --yes",
                "Without --dry-run or --yes it previews and asks for confirmation (refused without a terminal).",
                "  postbox bulk status RUN_ID   shows a run's progress or result."})
final class BulkCommand extends ApiCommand {

    enum Action { retry, cancel, status }

    /** How often a running bulk action is polled. */
    static final Duration POLL_INTERVAL = Duration.ofMillis(250);

    @Parameters(index = "0", paramLabel = "retry|cancel|status", description = "What to do.")
    Action action;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "QUERY", description = "The search (as for postbox search), or the RUN_ID of status.")
    List<String> query;

    @Option(names = "--kind", paramLabel = "outbox|message", defaultValue = "outbox",
            description = "Outbox events (default) or message events.")
    Kind kind;

    @Option(names = "--cap", paramLabel = "N", description = "The most events it may change, 1..10000 (required).")
    Integer cap;

    @Option(names = "--reason", paramLabel = "R", description = "Why (required; recorded with every change).")
    String reason;

    @Option(names = "--dry-run", description = "Only preview: count, sample, aggregates, warnings and the token.")
    boolean dryRun;

    @Option(names = {"-y", "--yes"}, description = "Run without asking (after the preview).")
    boolean yes;

    @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "3600",
            description = "How long to follow a run before leaving it running (default ${DEFAULT-VALUE}).")
    long waitSeconds;

    @Override
    int execute(ConsoleClient console) {
        if (action == Action.status) {
            return status(console);
        }
        if (cap == null) {
            throw usage("--cap", "is required: the most events the action may change (1..10000)");
        }
        if (reason == null || reason.isBlank()) {
            throw usage("--reason", "is required: why (it is recorded with every change)");
        }
        if (dryRun && yes) {
            throw usage("--dry-run", "and --yes are exclusive");
        }
        if (json() && !dryRun && !yes) {
            throw usage("--output json", "needs --dry-run or --yes (there is no question to answer in JSON)");
        }
        Map<String, Object> request = ConsoleClient.map("kind", kind.name(), "action", action.name(),
                "query", QueryText.join(query), "cap", cap, "reason", reason);
        Object preview = console.post("/api/bulk/preview", request);
        if (dryRun) {
            if (json()) {
                printJson(preview);
            } else {
                BulkOutput.preview(out(), preview, action.name());
            }
            return ExitCode.OK;
        }
        if (!json()) {
            BulkOutput.preview(out(), preview, action.name());
        }
        long matching = Fields.number(preview, "matching", 0);
        if (matching == 0) {
            if (json()) {
                printJson(ConsoleClient.map("preview", preview));
            } else {
                out().println("Nothing to " + action + ".");
                out().flush();
            }
            return ExitCode.OK;
        }
        if (!yes && !confirmed(matching)) {
            return ExitCode.ERROR;
        }
        request.put("token", Fields.text(preview, "token"));
        Object started = console.post("/api/bulk", request);
        String runId = Fields.text(started, "runId");
        if (runId == null) {
            throw new CliException(ExitCode.ERROR, "the console started no bulk run (no runId in " + Json.write(started) + ")");
        }
        Object run = follow(console, runId);
        if (json()) {
            printJson(ConsoleClient.map("preview", preview, "run", started, "result", run));
        } else {
            BulkOutput.result(out(), runId, run);
        }
        return BulkOutput.exitCode(run);
    }

    private boolean confirmed(long matching) {
        Terminal t = root().terminal();
        if (!t.interactive()) {
            throw new CliException(ExitCode.USAGE, "nothing changed: standard input is not a terminal, so there is no"
                    + " one to confirm; run again with --yes to " + action + " (or --dry-run to only preview)");
        }
        String answer = t.ask(capitalized() + " " + matching + (matching == 1 ? " event" : " events") + "? Type yes to run: ");
        if (answer != null && answer.trim().equalsIgnoreCase("yes")) {
            return true;
        }
        note("Not confirmed: nothing changed.");
        return false;
    }

    private Object follow(ConsoleClient console, String runId) {
        Instant until = Instant.now().plusSeconds(Math.max(1, waitSeconds));
        String last = null;
        while (true) {
            Object run = console.get("/api/bulk/" + ConsoleClient.segment(runId), Map.of());
            if (BulkOutput.finished(run)) {
                return run;
            }
            String progress = BulkOutput.progress(run);
            if (!json() && Fields.number(run, "planned", 0) > 0 && !progress.equals(last)) {
                note(progress);
                last = progress;
            }
            if (Instant.now().isAfter(until)) {
                throw new CliException(ExitCode.ERROR, "bulk run " + runId + " still running after " + waitSeconds
                        + " s; it goes on in the console: postbox bulk status " + runId);
            }
            try {
                Thread.sleep(POLL_INTERVAL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CliException(ExitCode.ERROR, "interrupted; bulk run " + runId + " goes on in the console");
            }
        }
    }

    private int status(ConsoleClient console) {
        if (query.size() != 1) {
            throw usage("RUN_ID", "bulk status takes one run id (was " + String.join(" ", query) + ")");
        }
        Object run = console.get("/api/bulk/" + ConsoleClient.segment(query.get(0)), Map.of());
        if (json()) {
            printJson(run);
            return ExitCode.OK;
        }
        PrintWriter out = out();
        if (BulkOutput.finished(run)) {
            BulkOutput.result(out, query.get(0), run);
        } else {
            out.println(BulkOutput.progress(run));
            out.flush();
        }
        return ExitCode.OK;
    }

    private String capitalized() {
        return Character.toUpperCase(action.name().charAt(0)) + action.name().substring(1);
    }
}
