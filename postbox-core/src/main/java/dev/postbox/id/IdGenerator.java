package dev.postbox.id;

/**
 * Source of row ids. Ids must be unique and positive; Postbox relies on them being time-ordered
 * (a later call returns a larger id) for per-aggregate publication order. Implementations are
 * thread-safe.
 */
@FunctionalInterface
public interface IdGenerator {

    /** The next id, strictly greater than every id this generator returned before. */
    long nextId();
}
