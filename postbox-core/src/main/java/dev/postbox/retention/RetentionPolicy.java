package dev.postbox.retention;

import dev.postbox.common.ValidationException;
import dev.postbox.compensation.CompensationStatus;
import dev.postbox.message.MessageStatus;
import dev.postbox.outbox.OutboxStatus;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What retention removes: per table and status, how long a finished row is kept; per table, whether rows
 * are deleted or moved to the table's {@code *_archive} twin. Nothing is removed that no rule names (DEAD
 * rows are kept until a rule says otherwise), and unfinished rows (PENDING, PUBLISHING, FAILED,
 * PROCESSING, RUNNING) cannot be named at all. The attempt history ({@link RetentionTable#ATTEMPTS}) follows
 * the events: unless {@link Builder#attempts} sets its own window, attempt rows older than the longest outbox
 * or message rule are deleted (none without such a rule). Immutable.
 * <pre>{@code
 * RetentionPolicy policy = RetentionPolicy.builder()
 *         .outbox(OutboxStatus.PUBLISHED, Duration.ofDays(7))
 *         .outbox(OutboxStatus.CANCELLED, Duration.ofDays(7))
 *         .consumeLog(Duration.ofDays(14))
 *         .archive(RetentionTable.OUTBOX)
 *         .build();
 * }</pre>
 */
public final class RetentionPolicy {

    /** One rule: rows of {@code table} in {@code status} (null: any, consume log) older than {@code keep}. */
    public record Rule(RetentionTable table, String status, Duration keep) {
    }

    /** How removed rows leave their table. */
    public enum Strategy {
        /** Deleted in bounded batches. */
        DELETE,
        /** Moved to the {@code *_archive} twin in bounded batches, each row in exactly one table at every moment. */
        ARCHIVE,
        /**
         * The outbox only, in its time-partitioned variant ({@link OutboxPartitions}): a partition whose whole
         * range is older than the PUBLISHED retention is dropped at once, after every row in it that must stay
         * was moved out; the other statuses' rules are applied to those rows one by one.
         */
        PARTITIONS
    }

    /** The longest retention accepted: 10 years. */
    public static final Duration MAX_KEEP = Duration.ofDays(3650);

    private final List<Rule> rules;
    /** The rules with the attempt history's derived one, when it has none of its own. */
    private final List<Rule> effective;
    private final Map<RetentionTable, Strategy> strategies;

    private RetentionPolicy(List<Rule> rules, Map<RetentionTable, Strategy> strategies) {
        this.rules = List.copyOf(rules);
        this.strategies = Map.copyOf(strategies);
        List<Rule> all = new ArrayList<>(rules);
        if (rules.stream().noneMatch(r -> r.table() == RetentionTable.ATTEMPTS)) {
            rules.stream().filter(r -> r.table() == RetentionTable.OUTBOX || r.table() == RetentionTable.MESSAGES)
                    .map(Rule::keep).max(Duration::compareTo)
                    .ifPresent(keep -> all.add(new Rule(RetentionTable.ATTEMPTS, null, keep)));
        }
        this.effective = List.copyOf(all);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Every rule, in the order given (the attempt history's derived rule is not among them). */
    public List<Rule> rules() {
        return rules;
    }

    /**
     * The rules of {@code table}; for {@link RetentionTable#ATTEMPTS} without a rule of its own, the derived one:
     * the longest outbox or message retention (empty without such a rule).
     */
    public List<Rule> rules(RetentionTable table) {
        return effective.stream().filter(r -> r.table() == table).toList();
    }

    /** The tables with at least one rule (the attempt history with its derived rule too). */
    public Set<RetentionTable> tables() {
        EnumSet<RetentionTable> out = EnumSet.noneOf(RetentionTable.class);
        effective.forEach(r -> out.add(r.table()));
        return out;
    }

    /** How {@code table}'s rows are removed (DELETE unless {@link Builder#archive} or {@link Builder#partitions} named it). */
    public Strategy strategy(RetentionTable table) {
        return strategies.getOrDefault(table, Strategy.DELETE);
    }

    /** The shortest retention of {@code table}'s rules, or null without rules. */
    Duration shortestKeep(RetentionTable table) {
        return rules(table).stream().map(Rule::keep).min(Duration::compareTo).orElse(null);
    }

    @Override
    public String toString() {
        return "RetentionPolicy" + rules + " " + strategies;
    }

    /** Collects rules; {@link #build()} freezes them. Not thread-safe. */
    public static final class Builder {
        private final Map<String, Rule> rules = new LinkedHashMap<>();
        private final Map<RetentionTable, Strategy> strategies = new EnumMap<>(RetentionTable.class);

        private Builder() {
        }

        /** Removes outbox rows in {@code status} (PUBLISHED, CANCELLED or DEAD) once older than {@code keep}. */
        public Builder outbox(OutboxStatus status, Duration keep) {
            return rule(RetentionTable.OUTBOX, Objects.requireNonNull(status, "status").name(), keep);
        }

        /** Removes message events in {@code status} (SUCCEEDED, CANCELLED or DEAD) once older than {@code keep}. */
        public Builder messages(MessageStatus status, Duration keep) {
            return rule(RetentionTable.MESSAGES, Objects.requireNonNull(status, "status").name(), keep);
        }

        /**
         * Removes consume-log rows older than {@code window}: a delivery of the same event after that is run
         * again, so the window must be longer than the longest time a broker may redeliver.
         */
        public Builder consumeLog(Duration window) {
            return rule(RetentionTable.CONSUME_LOG, null, window);
        }

        /**
         * Removes compensation-log rows in {@code status} (DONE or FAILED) once older than {@code keep}: the
         * guard forgets the key, so the same compensation could run again after that.
         */
        public Builder compensations(CompensationStatus status, Duration keep) {
            return rule(RetentionTable.COMPENSATIONS, Objects.requireNonNull(status, "status").name(), keep);
        }

        /**
         * Removes attempt-history rows ({@code biz_event_attempt}) once older than {@code window}, instead of the
         * default: the longest outbox or message retention.
         */
        public Builder attempts(Duration window) {
            return rule(RetentionTable.ATTEMPTS, null, window);
        }

        /** Moves the removed rows of {@code table} to its {@code *_archive} twin instead of deleting them. */
        public Builder archive(RetentionTable table) {
            Objects.requireNonNull(table, "table");
            if (!table.archivable()) {
                throw new ValidationException(table.field() + ".strategy", table.field() + " has no archive table;"
                        + " its rows are deleted");
            }
            strategies.put(table, Strategy.ARCHIVE);
            return this;
        }

        /**
         * Removes {@code table}'s rows by dropping whole time partitions ({@link Strategy#PARTITIONS}): the
         * outbox only (the consume and compensation logs are keyed by what they guard, a key a partitioned table
         * cannot keep unique), in its partitioned variant, with a PUBLISHED rule.
         */
        public Builder partitions(RetentionTable table) {
            Objects.requireNonNull(table, "table");
            if (table != RetentionTable.OUTBOX) {
                throw new ValidationException(table.field() + ".strategy", "time partitions are for the outbox only; "
                        + table.field() + " is removed by batched delete or archive");
            }
            strategies.put(table, Strategy.PARTITIONS);
            return this;
        }

        private Builder rule(RetentionTable table, String status, Duration keep) {
            String field = table.field() + (status == null ? ".window" : "." + status);
            if (status != null && !table.removableStatuses().contains(status)) {
                throw new ValidationException(field, status + " rows are "
                        + (table.unfinishedStatuses().contains(status) ? "unfinished and never removed" : "not removable")
                        + "; retention removes " + String.join(", ", table.removableStatuses()) + " only");
            }
            if (keep == null || keep.isNegative()) {
                throw new ValidationException(field, "must be zero or a positive duration (was " + keep + ")");
            }
            if (keep.compareTo(MAX_KEEP) > 0) {
                throw new ValidationException(field, "must be at most " + MAX_KEEP + " (was " + keep + ")");
            }
            rules.put(field, new Rule(table, status, keep));
            return this;
        }

        /** The policy; an empty one removes nothing. */
        public RetentionPolicy build() {
            if (strategies.get(RetentionTable.OUTBOX) == Strategy.PARTITIONS
                    && !rules.containsKey(RetentionTable.OUTBOX.field() + "." + OutboxStatus.PUBLISHED.name())) {
                throw new ValidationException("outbox.PUBLISHED", "the partitions strategy drops a partition once its"
                        + " whole range is older than the PUBLISHED retention: set outbox(PUBLISHED, keep)");
            }
            return new RetentionPolicy(new ArrayList<>(rules.values()), strategies);
        }
    }
}
