package dev.postbox.jdbc;

import dev.postbox.common.PostboxDefaults;
import dev.postbox.common.ValidationException;

import java.util.regex.Pattern;

/**
 * The names of Postbox's tables for one table prefix. The prefix is spliced into SQL, so it is
 * validated as a plain lower-case SQL identifier: letters, digits and underscores, starting with a
 * letter, at most {@value PostboxDefaults#MAX_TABLE_PREFIX_LENGTH} characters (empty is allowed).
 */
public record TableNames(String prefix) {

    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_]*");

    public TableNames {
        if (prefix == null) {
            throw new ValidationException("tablePrefix", "is required (use \"\" for no prefix)");
        }
        if (prefix.length() > PostboxDefaults.MAX_TABLE_PREFIX_LENGTH) {
            throw new ValidationException("tablePrefix", "must be at most " + PostboxDefaults.MAX_TABLE_PREFIX_LENGTH
                    + " characters (was " + prefix.length() + ")");
        }
        if (!prefix.isEmpty() && !PREFIX.matcher(prefix).matches()) {
            throw new ValidationException("tablePrefix", "must be a lower-case SQL identifier matching [a-z][a-z0-9_]*"
                    + " (was \"" + printable(prefix) + "\")");
        }
    }

    /** Names for the default prefix {@value PostboxDefaults#TABLE_PREFIX}. */
    public static TableNames defaults() {
        return new TableNames(PostboxDefaults.TABLE_PREFIX);
    }

    public String outbox() {
        return prefix + "outbox_event";
    }

    public String message() {
        return prefix + "message_event";
    }

    public String consumeLog() {
        return prefix + "consume_log";
    }

    public String compensationLog() {
        return prefix + "compensation_log";
    }

    public String outboxArchive() {
        return outbox() + "_archive";
    }

    public String messageArchive() {
        return message() + "_archive";
    }

    /** Who retried or cancelled which event by hand, and why. */
    public String adminLog() {
        return prefix + "admin_log";
    }

    /** Named leases: which process runs a job that must run in one process at a time, and until when. */
    public String jobLease() {
        return prefix + "job_lease";
    }

    /** Failed attempts of outbox and message events (an event's timeline). */
    public String eventAttempt() {
        return prefix + "event_attempt";
    }

    /** Operator actions (one event or a bulk action): who, when, why, on what, how many. */
    public String adminAction() {
        return prefix + "admin_action";
    }

    /** Relays and workers with their last heartbeat. */
    public String relayInstance() {
        return prefix + "relay_instance";
    }

    /** Per-heartbeat counts and latency of each relay or worker. */
    public String relayStats() {
        return prefix + "relay_stats";
    }

    /** The table in which the programmatic installer records applied schema versions. */
    public String schemaHistory() {
        return prefix + "postbox_schema";
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().forEach(c -> {
            if (c < 0x20 || c == 0x7f) {
                b.append(String.format("\\u%04x", c));
            } else {
                b.appendCodePoint(c);
            }
        });
        return b.toString();
    }
}
