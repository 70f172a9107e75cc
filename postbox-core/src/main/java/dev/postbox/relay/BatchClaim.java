package dev.postbox.relay;

import dev.postbox.internal.AttemptLog;
import dev.postbox.internal.Settings;
import dev.postbox.internal.poll.Failures;
import dev.postbox.internal.poll.Transactions;
import dev.postbox.outbox.OutboxRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * The claim of one relay cycle, in one short transaction: the clock check when it is due, then the heads
 * and (in ordered mode) the runs that follow them, and an attempt row for each lease it took over. The claims of one relay's batches in flight take turns
 * ({@link #claim} is synchronized: one claim transaction at a time per relay, and the follower look's state
 * is the relay's); claims of strategies that need it ({@link Claimer#serialized()}) are serialized with
 * every other relay's in this JVM.
 */
final class BatchClaim {

    private static final Logger log = LoggerFactory.getLogger(Relay.class);
    /** What {@link Transactions#claim} serializes on: the relays of this JVM. */
    private static final String SERIAL_KIND = "relay";
    /** At most this long between two looks for followers when the last one found none. */
    private static final long FOLLOWER_LOOK_NANOS = 100_000_000L;

    private final Settings settings;
    private final RelayConfig config;
    private final DataSource pool;
    private final Claimer claimer;
    /** Claims the runs that follow claimed heads; null in unordered mode. */
    private final Followers followers;
    private final ClockCheck clockCheck;
    private final AttemptLog attempts;
    /**
     * A steady trickle of events rarely has followers, and looking costs a round trip on every claim;
     * runs are looked for when the heads fill their share, when the last look found some, and otherwise
     * at most every {@link #FOLLOWER_LOOK_NANOS}. Skipping a look is always safe: followers are claimed
     * later as heads.
     */
    private boolean followersFound = true;
    private long lastFollowerLook;

    BatchClaim(Settings settings, RelayConfig config, DataSource pool) {
        this.settings = settings;
        this.config = config;
        this.pool = pool;
        String table = settings.tables().outbox();
        this.claimer = Claimer.forDialect(settings.dialect(), table, config.ordered(), config.unorderedTopics());
        this.followers = config.ordered() ? Claimer.followers(settings.dialect(), table, config.unorderedTopics()) : null;
        this.clockCheck = new ClockCheck(settings.dialect(), config.clockBound());
        this.attempts = new AttemptLog(settings.dialect(), settings.tables().eventAttempt(), settings.tables().message());
    }

    ClockCheck clockCheck() {
        return clockCheck;
    }

    /** Claims up to the batch size at {@code now}, in id order (committed); empty when nothing is claimable. */
    synchronized List<OutboxRecord> claim(Instant now) {
        return Transactions.claim(SERIAL_KIND, claimer.serialized(), settings.dialect(), pool, "relay " + config.instanceId() + " claim",
                c -> {
                    if (clockCheck.due()) {
                        checkClock(c);
                    }
                    Instant takeoverBefore = clockCheck.trusted() ? now : ClockCheck.NO_TAKEOVER;
                    Takeovers takeovers = new Takeovers();
                    List<OutboxRecord> claimed = claimIn(c, now, takeoverBefore, now.plus(config.lease()), takeovers);
                    if (!takeovers.isEmpty()) { // rare: a relay stopped holding these; its attempts end here
                        attempts.insert(c, takeovers.attempts(config.instanceId()), now);
                    }
                    return claimed;
                });
    }

    private void checkClock(Connection c) throws SQLException {
        if (!clockCheck.check(c, settings::now)) {
            return;
        }
        Duration offset = clockCheck.offset();
        String id = config.instanceId();
        if (clockCheck.trusted()) {
            log.info("Relay {}: clock within {} of the database's again (offset {}); taking over expired leases again",
                    id, clockCheck.bound(), offset);
        } else {
            log.error("Relay {}: clock is {} {} the database's, beyond the bound of {}: this relay does not take"
                    + " over other relays' expired leases until its clock is corrected (fix NTP on this host)",
                    id, offset.abs(), offset.isNegative() ? "ahead of" : "behind", clockCheck.bound());
        }
        Failures.safely(log, config.owner(),
                () -> config.listener().clockSkew(id, offset, clockCheck.bound(), clockCheck.trusted()));
    }

    /**
     * In ordered mode a quarter of the batch goes to heads first and the rest to the runs that follow them
     * in their aggregates, so that a backlog of few busy aggregates still fills the batch, and fewer
     * aggregates are in flight at once (which keeps the next head near the front of the index for every
     * relay). If the runs leave room, a second round of heads fills it.
     */
    private List<OutboxRecord> claimIn(Connection c, Instant now, Instant takeoverBefore, Instant lockUntil,
                                       Takeovers takeovers) throws SQLException {
        int limit = config.batchSize();
        String me = config.instanceId();
        if (followers == null || limit < 4) {
            return claimer.claim(c, limit, me, now, takeoverBefore, lockUntil, takeovers);
        }
        int firstHeads = limit / 4;
        List<OutboxRecord> heads = claimer.claim(c, firstHeads, me, now, takeoverBefore, lockUntil, takeovers);
        if (heads.isEmpty()) {
            return heads;
        }
        TreeMap<Long, OutboxRecord> all = new TreeMap<>();
        heads.forEach(r -> all.put(r.id(), r));
        long nanos = System.nanoTime();
        if (heads.size() == firstHeads || followersFound || nanos - lastFollowerLook >= FOLLOWER_LOOK_NANOS) {
            lastFollowerLook = nanos;
            List<OutboxRecord> more = followers.claim(c, heads, config.unorderedTopics(), limit - all.size(), me, now,
                    takeoverBefore, lockUntil, takeovers);
            followersFound = !more.isEmpty();
            more.forEach(r -> all.put(r.id(), r));
        }
        if (heads.size() == firstHeads && all.size() < limit) {
            claimer.claim(c, limit - all.size(), me, now, takeoverBefore, lockUntil, takeovers)
                    .forEach(r -> all.put(r.id(), r));
        }
        return new ArrayList<>(all.values());
    }
}
