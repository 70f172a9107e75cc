package dev.postbox.query;

import java.util.List;

/**
 * One page of a keyset-paged query.
 *
 * @param items      the rows, in the query's order; never more than the requested limit
 * @param nextCursor where the next page starts, or null when this is the last page
 */
public record Page<T>(List<T> items, String nextCursor) {

    public Page {
        items = List.copyOf(items);
    }

    public boolean hasNext() {
        return nextCursor != null;
    }

    /** The request for the next page with the same limit; only valid when {@link #hasNext()}. */
    public PageRequest next(int limit) {
        if (nextCursor == null) {
            throw new IllegalStateException("this is the last page");
        }
        return PageRequest.after(nextCursor, limit);
    }
}
