package dev.postbox.message;

/**
 * What one cycle of a {@link MessageWorker} did.
 *
 * @param claimed   events claimed (PENDING or due FAILED became PROCESSING)
 * @param succeeded recorded SUCCEEDED
 * @param retried   recorded FAILED with a next retry time
 * @param dead      recorded DEAD (not retryable, or retries exhausted under {@link AfterMaxRetries#DEAD})
 * @param cancelled recorded CANCELLED (retries exhausted under {@link AfterMaxRetries#CANCELLED})
 * @param fenced    outcomes not recorded because the event was no longer this worker's (recovered as stuck)
 * @param released  claimed but not handled because the worker was stopping (FAILED, due at once, no attempt counted)
 * @param recovered stuck PROCESSING events of other (crashed or late) workers taken back by this cycle
 */
public record WorkerCycle(int claimed, int succeeded, int retried, int dead, int cancelled, int fenced, int released,
                          int recovered) {

    /** A cycle that found nothing to do. */
    public static final WorkerCycle EMPTY = new WorkerCycle(0, 0, 0, 0, 0, 0, 0, 0);
}
