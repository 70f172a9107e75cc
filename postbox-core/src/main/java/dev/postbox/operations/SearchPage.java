package dev.postbox.operations;

import java.util.List;

/**
 * One page of a search.
 *
 * @param items      matches, newest first
 * @param nextCursor where the next page starts, null after the last
 * @param examined   index entries this page read
 * @param complete   false when the page stopped at the examined limit before it was full: more may match
 * @param driver     the qualifier whose index drove the search
 * @param warnings   what a person should know about this search (e.g. "error: alone reads only recent rows")
 */
public record SearchPage(List<EventSummary> items, String nextCursor, int examined, boolean complete, String driver,
                         List<String> warnings) {
    public SearchPage {
        items = List.copyOf(items);
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
    }
}
