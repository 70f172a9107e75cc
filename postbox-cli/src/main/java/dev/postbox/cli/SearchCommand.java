package dev.postbox.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code postbox search <query...>}: one page of {@code GET /api/search}, newest first, or with {@code --all}
 * page after page (following the cursor) until the last page or {@code --max} events. The JSON of several
 * pages is one document: the last page's, with every page's items.
 */
@Command(name = "search", mixinStandardHelpOptions = true,
        description = {"Find events by order number (aggregate id) or qualifiers, newest first.",
                "Qualifiers: event_no:E-77 aggregate:ORDER/ORD-1 trace:4bf9 type:ORDER_PAID",
                "  status:dead,failed topic:orders channel:MQ after:2h before:2026-12-02",
                "  error:\"connection refused\" attempts>=3",
                "One page unless --all. FAILED: failed attempts of those allowed (the first and its retries)."})
final class SearchCommand extends ApiCommand {

    /** Most events {@code --all} reads unless {@code --max} says otherwise. */
    static final int DEFAULT_MAX = 1_000;
    static final int MAX_MAX = 100_000;

    @Parameters(arity = "1..*", paramLabel = "QUERY", description = "The search; words are joined with spaces.")
    List<String> query;

    @Option(names = "--kind", paramLabel = "outbox|message", defaultValue = "outbox",
            description = "Outbox events (default) or message events.")
    Kind kind;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "50", description = "Events per page, 1..1000 (default 50).")
    int limit;

    @Option(names = "--after", paramLabel = "CURSOR", description = "Start after this cursor (printed under a page with more).")
    String after;

    @Option(names = "--all", description = "Follow the cursor to the last page, at most --max events.")
    boolean all;

    @Option(names = "--max", paramLabel = "N", defaultValue = "" + DEFAULT_MAX,
            description = "With --all: stop after N events, 1..100000 (default ${DEFAULT-VALUE}).")
    int max;

    @Override
    int execute(ConsoleClient console) {
        if (limit < 1 || limit > 1000) {
            throw usage("--limit", "must be between 1 and 1000 (was " + limit + ")");
        }
        if (max < 1 || max > MAX_MAX) {
            throw usage("--max", "must be between 1 and " + MAX_MAX + " (was " + max + ")");
        }
        String q = QueryText.join(query);
        List<Object> items = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        Object page;
        String cursor = after;
        int pages = 0;
        boolean incomplete = false;
        do {
            int want = all ? Math.min(limit, max - items.size()) : limit;
            page = console.get("/api/search", ConsoleClient.map("kind", kind.name(), "q", q, "limit", want, "after", cursor));
            pages++;
            items.addAll(Fields.list(page, "items"));
            for (Object w : Fields.list(page, "warnings")) {
                if (!warnings.contains(String.valueOf(w))) {
                    warnings.add(String.valueOf(w));
                }
            }
            incomplete |= Fields.get(page, "complete") != null && !Fields.flag(page, "complete");
            cursor = Fields.text(page, "nextCursor");
        } while (all && cursor != null && items.size() < max);

        if (json()) {
            Map<String, Object> doc = new LinkedHashMap<>();
            if (page instanceof Map<?, ?> m) {
                m.forEach((k, v) -> doc.put(String.valueOf(k), v));
            }
            doc.put("items", items);
            if (all) {
                doc.put("pages", pages);
            }
            printJson(doc);
            return ExitCode.OK;
        }
        Events.print(out(), items, "No events match " + q + (incomplete ? " among the rows read (the search stopped"
                + " at its read limit; narrow it, e.g. with after:/before:)" : "."));
        for (String w : warnings) {
            note("warning: " + w);
        }
        if (!items.isEmpty()) {
            String more = cursor == null ? "" : all ? "; stopped at --max " + max + ", more with --after " + cursor
                    : "; more: postbox search ... --after " + cursor + " (or --all)";
            note(items.size() + " event" + (items.size() == 1 ? "" : "s")
                    + (Fields.text(page, "driver") != null ? " (found by " + Fields.text(page, "driver").toLowerCase(java.util.Locale.ROOT)
                    + ")" : "") + more);
        }
        return ExitCode.OK;
    }
}
