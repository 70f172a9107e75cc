package dev.postbox.relay;

/**
 * What one claim-publish-record cycle did.
 *
 * @param claimed   events claimed
 * @param published events the target accepted and this relay recorded
 * @param failed    events recorded FAILED, to be retried
 * @param dead      events recorded DEAD
 * @param fenced    outcomes not recorded because another relay had taken the lease over meanwhile
 * @param takenOver events claimed from a relay whose lease expired without an outcome (it crashed or
 *                  stopped); counted in their {@code lease_expiries}, not as failed attempts
 */
public record Cycle(int claimed, int published, int failed, int dead, int fenced, int takenOver) {

    static final Cycle EMPTY = new Cycle(0, 0, 0, 0, 0, 0);

    /** A cycle that took no lease over. */
    public Cycle(int claimed, int published, int failed, int dead, int fenced) {
        this(claimed, published, failed, dead, fenced, 0);
    }

    @Override
    public String toString() {
        return "claimed=" + claimed + ", published=" + published + ", failed=" + failed + ", dead=" + dead
                + (fenced > 0 ? ", fenced=" + fenced : "") + (takenOver > 0 ? ", takenOver=" + takenOver : "");
    }
}
