package dev.postbox.query;

import dev.postbox.common.PostboxDefaults;
import dev.postbox.common.ValidationException;

/**
 * Which page of a keyset-paged query to read: at most {@code limit} rows after {@code after}, the
 * cursor of the previous page ({@link Page#nextCursor()}), or from the start when {@code after} is null.
 * A cursor belongs to the query that produced it.
 *
 * @param limit 1..{@value PostboxDefaults#MAX_PAGE_SIZE}
 */
public record PageRequest(int limit, String after) {

    public PageRequest {
        if (limit < 1 || limit > PostboxDefaults.MAX_PAGE_SIZE) {
            throw new ValidationException("limit", "must be between 1 and " + PostboxDefaults.MAX_PAGE_SIZE
                    + " (was " + limit + ")");
        }
    }

    /** The first page of {@code limit} rows. */
    public static PageRequest first(int limit) {
        return new PageRequest(limit, null);
    }

    /** The page of {@code limit} rows after {@code cursor}. */
    public static PageRequest after(String cursor, int limit) {
        return new PageRequest(limit, cursor);
    }
}
