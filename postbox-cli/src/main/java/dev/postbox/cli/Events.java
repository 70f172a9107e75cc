package dev.postbox.cli;

import java.io.PrintWriter;
import java.util.List;

/** Event summaries (search results, an aggregate's sequence, a bulk sample) as one table, never a payload. */
final class Events {

    private Events() {
    }

    /** The table of {@code events}, or {@code none} when there are none. */
    static void print(PrintWriter out, List<?> events, String none) {
        print(out, events, none, null);
    }

    /** The same, with event {@code marked} flagged {@code *} (the one a detail is about). */
    static void print(PrintWriter out, List<?> events, String none, String marked) {
        if (events.isEmpty()) {
            out.println(none);
            out.flush();
            return;
        }
        table(events, marked).print(out);
    }

    static Table table(List<?> events, String marked) {
        int m = marked == null ? 0 : 1; // a first column, "*" on the marked event's row
        List<String> headers = new java.util.ArrayList<>(List.of("EVENT_NO", "STATUS", "TYPE", "KEY", "TOPIC", "FAILED",
                "CREATED", "LAST_ERROR"));
        if (m == 1) {
            headers.add(0, "");
        }
        Table t = new Table(headers.toArray(String[]::new)).width(m, 50).width(m + 3, 36).width(m + 7, 60);
        for (Object e : events) {
            List<Object> cells = new java.util.ArrayList<>(List.of(Fields.orDash(Fields.text(e, "eventNo")), status(e),
                    Fields.orDash(Fields.text(e, "eventType")), key(e), Fields.orDash(Fields.text(e, "route")), tries(e),
                    Fields.time(e, "createTime"), Fields.orDash(Fields.text(e, "failReason"))));
            if (m == 1) {
                cells.add(0, marked.equals(Fields.text(e, "eventNo")) ? "*" : "");
            }
            t.row(cells.toArray());
        }
        return t;
    }

    /** {@code ORDER/ORD-1042}: the aggregate (outbox) or business key (message). */
    static String key(Object e) {
        String type = Fields.text(e, "keyType");
        String key = Fields.text(e, "key");
        return type == null ? Fields.orDash(key) : type + "/" + Fields.orDash(key);
    }

    static String status(Object e) {
        String s = Fields.orDash(Fields.text(e, "status"));
        return Fields.flag(e, "archived") ? s + " (archived)" : s;
    }

    /**
     * Failed attempts so far of the attempts allowed (the first and its retries), e.g. {@code 3/3} for an event
     * that is DEAD after its two retries, {@code 0/6} for a new event with the default five.
     */
    static String tries(Object e) {
        long max = Fields.number(e, "maxRetryCount", -1);
        return Fields.number(e, "retryCount", 0) + (max >= 0 ? "/" + (max + 1) : "");
    }
}
