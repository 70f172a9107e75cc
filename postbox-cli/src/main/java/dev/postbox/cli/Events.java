package dev.postbox.cli;

import java.io.PrintWriter;
import java.util.List;

/** Event summaries (search results, an aggregate's sequence, a bulk sample) as one table, never a payload. */
final class Events {

    private Events() {
    }

    /** The table of {@code events}, or {@code none} when there are none. */
    static void print(PrintWriter out, List<?> events, String none) {
        if (events.isEmpty()) {
            out.println(none);
            out.flush();
            return;
        }
        table(events).print(out);
    }

    static Table table(List<?> events) {
        Table t = new Table("EVENT_NO", "STATUS", "TYPE", "KEY", "TOPIC", "TRIES", "CREATED", "LAST_ERROR")
                .width(0, 48).width(3, 36).width(7, 60);
        for (Object e : events) {
            t.row(Fields.text(e, "eventNo"), status(e), Fields.text(e, "eventType"), key(e),
                    Fields.orDash(Fields.text(e, "route")), tries(e), Fields.time(e, "createTime"),
                    Fields.text(e, "failReason"));
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

    /** Failed attempts so far of the most allowed, e.g. {@code 3/5}. */
    static String tries(Object e) {
        long max = Fields.number(e, "maxRetryCount", -1);
        return Fields.number(e, "retryCount", 0) + (max >= 0 ? "/" + max : "");
    }
}
