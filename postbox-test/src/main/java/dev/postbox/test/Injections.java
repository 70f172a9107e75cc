package dev.postbox.test;

import dev.postbox.outbox.OutboxRecord;

import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

/**
 * The failures a {@link RecordingPublisher} is told to inject, and what they make of each event of one publish call
 * (its {@link Plan}), in the order the publisher's class comment gives. Counted injections ("the next n") are used
 * up as calls are planned. Thread-safe.
 */
final class Injections {

    /** What happens to one event of a call. */
    enum Fate { FAIL, REJECT, SEND }

    /**
     * The plan of one call: per event its fate, whether its acknowledgement is lost and whether the relay crashes
     * after it is delivered; and how long the call waits before it answers.
     */
    record Plan(Fate[] fates, boolean[] loseAck, boolean[] crash, Duration latency) {
    }

    private int failNext;
    private Predicate<OutboxRecord> failWhen;
    private Predicate<OutboxRecord> rejectWhen;
    private int loseAckNext;
    private Predicate<OutboxRecord> loseAckWhen;
    private int crashNext;
    private Predicate<OutboxRecord> crashWhen;
    private Duration latency = Duration.ZERO;

    synchronized void failNext(int n) {
        failNext = n;
    }

    synchronized void failWhen(Predicate<OutboxRecord> condition) {
        failWhen = condition;
    }

    synchronized void rejectWhen(Predicate<OutboxRecord> condition) {
        rejectWhen = condition;
    }

    synchronized void loseAckNext(int n) {
        loseAckNext = n;
    }

    synchronized void loseAckWhen(Predicate<OutboxRecord> condition) {
        loseAckWhen = condition;
    }

    synchronized void crashNext(int n) {
        crashNext = n;
    }

    synchronized void crashWhen(Predicate<OutboxRecord> condition) {
        crashWhen = condition;
    }

    synchronized void latency(Duration latency) {
        this.latency = latency;
    }

    /** Removes every injection. */
    synchronized void clear() {
        failNext = 0;
        failWhen = null;
        rejectWhen = null;
        loseAckNext = 0;
        loseAckWhen = null;
        crashNext = 0;
        crashWhen = null;
        latency = Duration.ZERO;
    }

    /** The plan of a call with {@code records}, using up the counted injections it applies. */
    synchronized Plan plan(List<OutboxRecord> records) {
        int n = records.size();
        Plan p = new Plan(new Fate[n], new boolean[n], new boolean[n], latency);
        for (int i = 0; i < n; i++) {
            OutboxRecord r = records.get(i);
            if (failNext > 0 || matches(failWhen, r)) {
                failNext = Math.max(0, failNext - 1);
                p.fates()[i] = Fate.FAIL;
            } else if (matches(rejectWhen, r)) {
                p.fates()[i] = Fate.REJECT;
            } else {
                p.fates()[i] = Fate.SEND;
                if (loseAckNext > 0 || matches(loseAckWhen, r)) {
                    loseAckNext = Math.max(0, loseAckNext - 1);
                    p.loseAck()[i] = true;
                }
                if (crashNext > 0 || matches(crashWhen, r)) {
                    crashNext = Math.max(0, crashNext - 1);
                    p.crash()[i] = true;
                }
            }
        }
        return p;
    }

    private static boolean matches(Predicate<OutboxRecord> condition, OutboxRecord r) {
        return condition != null && condition.test(r);
    }
}
