package dev.postbox.cli;

import java.io.PrintWriter;
import java.util.Map;

/** How a bulk dry run, a running bulk action and its result read in a terminal. */
final class BulkOutput {

    private BulkOutput() {
    }

    static void preview(PrintWriter out, Object p, String action) {
        long matching = Fields.number(p, "matching", 0);
        boolean more = Fields.flag(p, "moreThanCap");
        Object cap = Fields.get(p, "request.cap");
        out.println("Dry run: " + action + " would change " + matching + " event" + (matching == 1 ? "" : "s")
                + (more ? " (more match: it stops at the cap of " + cap + ")" : "")
                + " of " + groups(p) + "; nothing was changed.");
        if (!Fields.list(p, "sample").isEmpty()) {
            out.println();
            out.println("Sample (first " + Fields.list(p, "sample").size() + ")");
            Events.print(out, Fields.list(p, "sample"), "");
        }
        for (Object w : Fields.list(p, "warnings")) {
            out.println("warning: " + w);
        }
        out.println();
        out.println("Token: " + Fields.orDash(Fields.text(p, "token")) + " (valid until " + Fields.time(p, "expiresAt") + ")");
        out.flush();
    }

    /** {@code 3 aggregates} (outbox) or {@code 1 business key} (message events). */
    private static String groups(Object p) {
        long n = Fields.number(p, "aggregates", 0);
        boolean message = "MESSAGE".equalsIgnoreCase(Fields.text(p, "request.kind"));
        return n + (message ? (n == 1 ? " business key" : " business keys") : (n == 1 ? " aggregate" : " aggregates"));
    }

    /** The run's result ({@code BulkResult}) once it has one, else the run itself. */
    static Object outcome(Object run) {
        Object r = Fields.get(run, "result");
        return r instanceof Map ? r : run;
    }

    /** The run's status (RUNNING, DONE, FAILED): the run's own, else its result's. */
    static String status(Object run) {
        String s = Fields.text(run, "status");
        return s != null ? s : Fields.text(outcome(run), "status");
    }

    static boolean finished(Object run) {
        String status = status(run);
        return status != null && !"RUNNING".equalsIgnoreCase(status) && !"PENDING".equalsIgnoreCase(status);
    }

    static String progress(Object run) {
        return "running: " + Fields.number(run, "changed", 0) + " of " + Fields.number(run, "planned", 0)
                + " changed, " + Fields.number(run, "examined", 0) + " examined";
    }

    static void result(PrintWriter out, String runId, Object run) {
        Object r = outcome(run);
        out.println("Bulk run " + runId + ": " + Fields.orDash(status(run)) + ", " + Fields.number(r, "changed", 0)
                + " changed, " + Fields.number(r, "skipped", 0) + " skipped (changed status meanwhile); audit entry "
                + Fields.orDash(Fields.text(r, "auditId")));
        Object error = Fields.get(r, "error") != null ? Fields.get(r, "error") : Fields.get(run, "error");
        if (error != null) {
            String message = error instanceof Map ? Fields.text(error, "message") : String.valueOf(error);
            out.println("error: " + message + " (events changed before it stay changed: postbox audit)");
        }
        out.flush();
    }

    static int exitCode(Object run) {
        return "DONE".equalsIgnoreCase(status(run)) ? ExitCode.OK : ExitCode.ERROR;
    }
}
