package dev.postbox.console;

import dev.postbox.operations.Overview;
import dev.postbox.query.Backlog;

import java.time.Duration;
import java.util.Map;

/** Where the JSON of a response differs from its record's components: values a person reads and the UI derives. */
final class Views {

    private Views() {
    }

    static Map<String, Object> overview(Overview o) {
        Map<String, Object> v = Json.recordToMap(o);
        v.put("outbox", backlog(o.outbox()));
        v.put("messages", backlog(o.messages()));
        return v;
    }

    /** A backlog with its unfinished total and the oldest event's age, so a browser's clock does not matter. */
    static Map<String, Object> backlog(Backlog b) {
        if (b == null) {
            return null;
        }
        Map<String, Object> v = Json.recordToMap(b);
        v.put("unfinished", b.unfinished());
        v.put("oldestUnfinishedAgeMillis", b.oldestUnfinishedAge().map(Duration::toMillis).orElse(null));
        return v;
    }

    /** Text from a request made safe for one log line: control characters replaced, at most 500 characters. */
    static String logText(String s) {
        if (s == null) {
            return "";
        }
        String line = s.replaceAll("\\p{Cntrl}", " ");
        return line.length() > 500 ? line.substring(0, 500) + "..." : line;
    }
}
