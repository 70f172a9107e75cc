package dev.postbox.operations;

import dev.postbox.query.Backlog;

import java.time.Instant;
import java.util.List;

/**
 * The console's first page.
 *
 * @param readAt    when this was read (it is cached for {@link OperationsConfig#overviewTtl()})
 * @param outbox    outbox backlog by status and the age of its oldest unfinished event
 * @param messages  message-event backlog likewise
 * @param lastHour  one entry per minute of the last hour, oldest first, from the relays' and workers' stats
 * @param instances relays and workers seen in the last day, live ones first
 * @param blocked   aggregates blocked by a DEAD or FAILED head, counted up to {@link #BLOCKED_CAP}
 * @param problems  what needs a person, most severe first; empty when all is well
 */
public record Overview(Instant readAt, Backlog outbox, Backlog messages, List<Minute> lastHour,
                       List<Instance> instances, long blocked, List<Problem> problems) {

    public static final int BLOCKED_CAP = 1_000;

    public Overview {
        lastHour = List.copyOf(lastHour);
        instances = List.copyOf(instances);
        problems = List.copyOf(problems);
    }

    /** What relays (outbox) and workers (message) did in one minute; latencies are create-to-success. */
    public record Minute(Instant start, long published, long handled, long failed, long dead, Long p50Millis,
                         Long p99Millis, Long maxMillis) {
    }

    /**
     * A relay or worker.
     *
     * @param alive      its last heartbeat is recent ({@link OperationsConfig#aliveWithin()}) and it did not stop
     * @param leasesHeld outbox events it holds PUBLISHING now
     * @param jobs       named job leases it holds (retention, ...)
     */
    public record Instance(String instance, String role, String host, String detail, Instant startedTime,
                           Instant lastSeenTime, Instant stoppedTime, boolean alive, long leasesHeld, List<String> jobs) {
        public Instance {
            jobs = List.copyOf(jobs);
        }
    }

    /** Something that needs a person. */
    public record Problem(Severity severity, String code, String message) {
    }

    public enum Severity { CRITICAL, WARNING }
}
