package dev.postbox.test;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Checks Postbox's promises against the database and what reached the target ({@link RecordingPublisher}), after a
 * test drove its scenario to the end:
 * <ul>
 *   <li>{@link #assertEveryEventPublished()}: every committed outbox event is PUBLISHED, and (with deliveries) every
 *       PUBLISHED one really reached the target: nothing was lost.</li>
 *   <li>{@link #assertNoRolledBackEventPublished()}: every delivered event is a committed row of the outbox (or its
 *       archive): nothing of a rolled-back transaction went out.</li>
 *   <li>{@link #assertOrderPerAggregate()}: within every aggregate, events first reached the target in the order they
 *       were written, and none went out while an earlier one of its aggregate never did (unless that one was
 *       CANCELLED). For ordered relays (the default).</li>
 *   <li>{@link #assertInboxEffectsOnce(String)}: the consumer's consume log holds exactly one row per delivered
 *       event, however many times it was delivered; {@link #assertEffectsOnce(String, String)} checks the consumer's
 *       own effects the same way.</li>
 * </ul>
 * {@link #assertAll()} runs every check that applies and reports every broken one at once. Each failure is an
 * {@link AssertionError} naming the invariant and listing its offenders (up to {@value #MAX_LISTED}, then how many more).
 * Immutable and thread-safe; the {@code with...} methods return a new checker.
 *
 * <pre>{@code
 * InvariantChecker.of(postbox, dataSource).withDeliveries(publisher).withConsumer("inventory").assertAll();
 * }</pre>
 */
public final class InvariantChecker {

    /** Offenders listed per broken invariant; the rest are counted. */
    public static final int MAX_LISTED = 20;

    private final Postbox postbox;
    private final DataSource dataSource;
    private final RecordingPublisher deliveries;
    private final Map<String, Predicate<OutboxRecord>> consumers;
    private final Map<String, String> effects;

    private InvariantChecker(Postbox postbox, DataSource dataSource, RecordingPublisher deliveries,
                             Map<String, Predicate<OutboxRecord>> consumers, Map<String, String> effects) {
        this.postbox = postbox;
        this.dataSource = dataSource;
        this.deliveries = deliveries;
        this.consumers = consumers;
        this.effects = effects;
    }

    /** A checker of {@code postbox}'s tables on {@code dataSource}. */
    public static InvariantChecker of(Postbox postbox, DataSource dataSource) {
        return new InvariantChecker(Objects.requireNonNull(postbox, "postbox"), Objects.requireNonNull(dataSource, "dataSource"),
                null, Map.of(), Map.of());
    }

    /** The same checker, comparing the database with what {@code publisher} received. */
    public InvariantChecker withDeliveries(RecordingPublisher publisher) {
        return new InvariantChecker(postbox, dataSource, Objects.requireNonNull(publisher, "publisher"), consumers, effects);
    }

    /** The same checker, with {@code consumer}'s consume log checked by {@link #assertAll()}; it receives every event. */
    public InvariantChecker withConsumer(String consumer) {
        return withConsumer(consumer, e -> true);
    }

    /**
     * The same checker, with {@code consumer}'s consume log checked by {@link #assertAll()} against the delivered
     * events it {@code receives} (e.g. those of its topic).
     */
    public InvariantChecker withConsumer(String consumer, Predicate<OutboxRecord> receives) {
        Map<String, Predicate<OutboxRecord>> more = new LinkedHashMap<>(consumers);
        more.put(Objects.requireNonNull(consumer, "consumer"), Objects.requireNonNull(receives, "receives"));
        return new InvariantChecker(postbox, dataSource, deliveries, Collections.unmodifiableMap(more), effects);
    }

    /**
     * The same checker, with the effects {@code countSql} counts checked by {@link #assertAll()} (see
     * {@link #assertEffectsOnce(String, String)}).
     */
    public InvariantChecker withEffects(String description, String countSql) {
        Map<String, String> more = new LinkedHashMap<>(effects);
        more.put(Objects.requireNonNull(description, "description"), Objects.requireNonNull(countSql, "countSql"));
        return new InvariantChecker(postbox, dataSource, deliveries, consumers, Collections.unmodifiableMap(more));
    }

    /**
     * Runs every check that applies: every event published, and with deliveries no rolled-back event published, order
     * per aggregate, and the consumers' and effects' checks given. One {@link AssertionError} lists all broken ones.
     */
    public void assertAll() {
        List<String> broken = new ArrayList<>();
        collect(broken, "every committed event published", everyEventPublished());
        if (deliveries != null) {
            collect(broken, "no rolled-back event published", noRolledBackEventPublished());
            collect(broken, "order per aggregate kept", orderPerAggregate());
            consumers.forEach((consumer, receives) -> collect(broken, "each inbox effect once (consumer " + consumer + ")",
                    inboxEffectsOnce(consumer, receives)));
            effects.forEach((what, sql) -> collect(broken, "each effect once (" + what + ")", effectsOnce(sql)));
        } else if (!consumers.isEmpty() || !effects.isEmpty()) {
            throw new IllegalStateException("withConsumer/withEffects need withDeliveries(publisher): the checker compares"
                    + " the effects with what was delivered");
        }
        if (!broken.isEmpty()) {
            throw new AssertionError("Postbox invariants broken:\n - " + String.join("\n - ", broken));
        }
    }

    /** Asserts that every committed outbox event is PUBLISHED and, with deliveries, that each of them was delivered. */
    public void assertEveryEventPublished() {
        fail("every committed event published", everyEventPublished());
    }

    /** Asserts that every delivered event is a committed row of the outbox or of its archive. Needs deliveries. */
    public void assertNoRolledBackEventPublished() {
        fail("no rolled-back event published", noRolledBackEventPublished());
    }

    /** Asserts that events reached the target in their aggregate's write order (see the class comment). Needs deliveries. */
    public void assertOrderPerAggregate() {
        fail("order per aggregate kept", orderPerAggregate());
    }

    /** Asserts that {@code consumer}'s consume log holds exactly one row per delivered event. Needs deliveries. */
    public void assertInboxEffectsOnce(String consumer) {
        assertInboxEffectsOnce(consumer, e -> true);
    }

    /**
     * Asserts that {@code consumer}'s consume log holds exactly one row per delivered event it {@code receives}, and
     * none for another event. Needs deliveries.
     */
    public void assertInboxEffectsOnce(String consumer, Predicate<OutboxRecord> receives) {
        fail("each inbox effect once (consumer " + consumer + ")", inboxEffectsOnce(consumer, receives));
    }

    /**
     * Asserts that the consumer's own effects happened once per delivered event: {@code countSql} must return rows of
     * ({@code event_no}, count of effects), e.g. {@code SELECT event_no, COUNT(*) FROM reservation GROUP BY event_no};
     * every delivered event must have a count of 1 and no other event may have one. Needs deliveries.
     */
    public void assertEffectsOnce(String description, String countSql) {
        fail("each effect once (" + description + ")", effectsOnce(countSql));
    }

    // ---- the checks: each returns its offenders ----

    private List<String> everyEventPublished() {
        List<String> offenders = new ArrayList<>();
        String sql = "SELECT event_no, publish_status, fail_reason FROM %s WHERE deleted = 0 ORDER BY id"
                .formatted(postbox.tables().outbox());
        query(sql, List.of(), rs -> {
            String eventNo = rs.getString(1);
            OutboxStatus status = OutboxStatus.of(rs.getInt(2));
            if (status != OutboxStatus.PUBLISHED) {
                String reason = rs.getString(3);
                offenders.add(eventNo + " is " + status + (reason == null ? "" : " (" + reason + ")"));
            } else if (deliveries != null && deliveries.copies(eventNo) == 0) {
                offenders.add(eventNo + " is PUBLISHED but never reached the target");
            }
        });
        return offenders;
    }

    private List<String> noRolledBackEventPublished() {
        Set<String> committed = new HashSet<>();
        for (String table : List.of(postbox.tables().outbox(), postbox.tables().outboxArchive())) {
            query("SELECT event_no FROM " + table, List.of(), rs -> committed.add(rs.getString(1)));
        }
        List<String> offenders = new ArrayList<>();
        for (String eventNo : requireDeliveries().published()) {
            if (!committed.contains(eventNo)) {
                offenders.add(eventNo + " was delivered but is no committed outbox event (rolled back?)");
            }
        }
        return offenders;
    }

    private List<String> orderPerAggregate() {
        Map<String, Integer> firstDelivery = new HashMap<>();
        List<RecordingPublisher.Delivery> all = requireDeliveries().deliveries();
        for (int i = 0; i < all.size(); i++) {
            firstDelivery.putIfAbsent(all.get(i).eventNo(), i);
        }
        List<String> offenders = new ArrayList<>();
        String sql = "SELECT id, event_no, aggregate_type, aggregate_id, publish_status FROM %s WHERE deleted = 0"
                .formatted(postbox.tables().outbox()) + " ORDER BY aggregate_type, aggregate_id, id";
        String[] aggregate = {null};
        List<String[]> earlier = new ArrayList<>(); // {event_no, status} of the aggregate's rows so far
        query(sql, List.of(), rs -> {
            String agg = rs.getString(3) + "/" + rs.getString(4);
            if (!agg.equals(aggregate[0])) {
                aggregate[0] = agg;
                earlier.clear();
            }
            String eventNo = rs.getString(2);
            OutboxStatus status = OutboxStatus.of(rs.getInt(5));
            Integer at = firstDelivery.get(eventNo);
            if (at != null) {
                for (String[] e : earlier) {
                    Integer before = firstDelivery.get(e[0]);
                    if (before == null && !OutboxStatus.CANCELLED.name().equals(e[1])) {
                        offenders.add(agg + ": " + eventNo + " was delivered although the earlier " + e[0] + " (" + e[1]
                                + ") never was");
                    } else if (before != null && before > at) {
                        offenders.add(agg + ": " + eventNo + " was first delivered before the earlier " + e[0]);
                    }
                }
            }
            earlier.add(new String[] {eventNo, status.name()});
        });
        return offenders;
    }

    private List<String> inboxEffectsOnce(String consumer, Predicate<OutboxRecord> receives) {
        String sql = "SELECT event_no, COUNT(*) FROM %s WHERE consumer = ? GROUP BY event_no"
                .formatted(postbox.tables().consumeLog());
        return countsOfOne(sql, List.of(consumer), "consume-log rows", receives);
    }

    private List<String> effectsOnce(String countSql) {
        return countsOfOne(countSql, List.of(), "effects", e -> true);
    }

    /**
     * Offenders among the (event_no, count) rows of {@code sql} against the delivered events {@code received}: a count
     * other than 1.
     */
    private List<String> countsOfOne(String sql, List<String> parameters, String what, Predicate<OutboxRecord> received) {
        Map<String, Long> counts = new LinkedHashMap<>();
        query(sql, parameters, rs -> counts.merge(rs.getString(1), rs.getLong(2), Long::sum));
        Map<String, Integer> copies = new LinkedHashMap<>();
        for (RecordingPublisher.Delivery d : requireDeliveries().deliveries()) {
            if (received.test(d.event())) {
                copies.merge(d.eventNo(), 1, Integer::sum);
            }
        }
        List<String> offenders = new ArrayList<>();
        copies.forEach((eventNo, delivered) -> {
            long n = counts.getOrDefault(eventNo, 0L);
            if (n != 1) {
                offenders.add(eventNo + " delivered " + delivered + "x has " + n + " " + what);
            }
        });
        counts.forEach((eventNo, n) -> {
            if (!copies.containsKey(eventNo) && n > 0) {
                offenders.add(eventNo + " was never delivered but has " + n + " " + what);
            }
        });
        return offenders;
    }

    // ---- plumbing ----

    private RecordingPublisher requireDeliveries() {
        if (deliveries == null) {
            throw new IllegalStateException("this check compares the database with what was delivered: give the"
                    + " RecordingPublisher with withDeliveries(publisher)");
        }
        return deliveries;
    }

    private interface Row {
        void read(ResultSet rs) throws SQLException;
    }

    private void query(String sql, List<String> parameters, Row row) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.size(); i++) {
                ps.setString(i + 1, parameters.get(i));
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    row.read(rs);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("InvariantChecker: query failed (" + e.getMessage() + "): " + sql, e);
        }
    }

    private static void collect(List<String> broken, String invariant, List<String> offenders) {
        if (!offenders.isEmpty()) {
            broken.add(describe(invariant, offenders));
        }
    }

    private static void fail(String invariant, List<String> offenders) {
        if (!offenders.isEmpty()) {
            throw new AssertionError("Postbox invariant broken: " + describe(invariant, offenders));
        }
    }

    private static String describe(String invariant, List<String> offenders) {
        List<String> listed = offenders.subList(0, Math.min(MAX_LISTED, offenders.size()));
        return invariant + ": " + offenders.size() + " offender(s): " + String.join("; ", listed)
                + (offenders.size() > MAX_LISTED ? "; and " + (offenders.size() - MAX_LISTED) + " more" : "");
    }
}
