package dev.postbox.message;

/** Counts of one worker cycle while it runs. */
final class Tally {
    final int claimed;
    final int recovered;
    int succeeded;
    int retried;
    int dead;
    int cancelled;
    int fenced;
    int released;

    Tally(int claimed, int recovered) {
        this.claimed = claimed;
        this.recovered = recovered;
    }

    WorkerCycle cycle() {
        return new WorkerCycle(claimed, succeeded, retried, dead, cancelled, fenced, released, recovered);
    }
}
