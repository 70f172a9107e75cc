package dev.postbox.operations;

/** Told after each chunk of a bulk action. */
@FunctionalInterface
public interface BulkProgress {

    /** {@code changed} of at most {@code planned} events changed so far, {@code examined} considered. */
    void progress(int changed, int examined, int planned);

    static BulkProgress none() {
        return (changed, examined, planned) -> { };
    }
}
