package dev.postbox.relay;

import dev.postbox.internal.AttemptLog;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;

import java.util.ArrayList;
import java.util.List;

/**
 * The takeovers of one claim: each claimed event whose lease had expired (the relay holding it stopped
 * before it recorded an outcome), with the relay that held it. The claim strategies fill it as they lease
 * rows; the claim's transaction turns it into attempt rows ({@link AttemptLog#LEASE_EXPIRED}). Takeovers are
 * rare, so an ordinary claim only pays for an empty list. Not thread-safe: one claim's.
 */
final class Takeovers {

    /** A claimed event as leased now, and the {@code locked_by} it had before (null when not known). */
    record Takeover(OutboxRecord event, String previousOwner) {
    }

    private final List<Takeover> all = new ArrayList<>(0);

    /** {@code leased} was taken over from {@code previousOwner}. */
    void add(OutboxRecord leased, String previousOwner) {
        all.add(new Takeover(leased, previousOwner));
    }

    /** For strategies that read a row before leasing it: a takeover when the row read was PUBLISHING. */
    void ifExpired(OutboxRecord read, OutboxRecord leased) {
        if (read.status() == OutboxStatus.PUBLISHING) {
            add(leased, read.lockedBy());
        }
    }

    boolean isEmpty() {
        return all.isEmpty();
    }

    List<Takeover> all() {
        return List.copyOf(all);
    }

    /**
     * One attempt row per takeover by relay {@code claimer}: the instance is the relay that held the lease, or,
     * when that is not known, the claimer, and the error says so.
     */
    List<AttemptLog.Attempt> attempts(String claimer) {
        List<AttemptLog.Attempt> out = new ArrayList<>(all.size());
        for (Takeover t : all) {
            OutboxRecord e = t.event();
            String held = t.previousOwner();
            String error = (held == null
                    ? "lease expired before its relay recorded an outcome (which relay held it is not known)"
                    : "lease of relay " + held + " expired before it recorded an outcome")
                    + "; taken over by relay " + claimer + " (takeover " + e.leaseExpiries() + ")";
            out.add(new AttemptLog.Attempt(AttemptLog.OUTBOX, e.id(), e.eventNo(), e.retryCount(), AttemptLog.LEASE_EXPIRED,
                    error, held == null ? claimer : held, null));
        }
        return out;
    }
}
