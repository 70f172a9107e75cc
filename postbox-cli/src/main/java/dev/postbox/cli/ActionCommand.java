package dev.postbox.cli;

import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.Map;

/**
 * A single action (retry, cancel, cancel a sequence, retry a compensation): one POST with a mandatory
 * {@code --reason}, which the console records with the operator's name in the audit log. Prints what the
 * console answered: its sentence, the audit entry and each event changed with its status before and after.
 * An action that finds nothing to change (the event was published meanwhile) is not an error: exit 0,
 * {@code changed: 0}.
 */
abstract class ActionCommand extends ApiCommand {

    @Option(names = "--reason", paramLabel = "R", required = true,
            description = "Why (required; recorded with your name in the audit log, at most 500 characters).")
    String reason;

    /** The API path to POST to. */
    abstract String path();

    /** The request body without the reason. */
    Map<String, Object> body() {
        return ConsoleClient.map();
    }

    @Override
    final int execute(ConsoleClient console) {
        if (reason.isBlank()) {
            throw usage("--reason", "must not be blank");
        }
        Map<String, Object> body = body();
        body.put("reason", reason);
        Object result = console.post(path(), body);
        if (json()) {
            printJson(result);
        } else {
            print(out(), result);
        }
        return ExitCode.OK;
    }

    static void print(PrintWriter out, Object result) {
        long changed = Fields.number(result, "changed", 0);
        String message = Fields.text(result, "message");
        out.println((message != null ? message : changed + " changed")
                + " (audit entry " + Fields.orDash(Fields.text(result, "auditId")) + ")");
        Table t = new Table("EVENT_NO", "TABLE", "FROM", "TO").width(0, 60);
        for (Object c : Fields.list(result, "changes")) {
            t.row(Fields.text(c, "eventNo"), Fields.text(c, "table"), Fields.text(c, "fromStatus"), Fields.text(c, "toStatus"));
        }
        if (!t.isEmpty()) {
            t.print(out);
        }
        out.flush();
    }
}
