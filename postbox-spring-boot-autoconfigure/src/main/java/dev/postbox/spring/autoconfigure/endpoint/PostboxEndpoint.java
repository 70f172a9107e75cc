package dev.postbox.spring.autoconfigure.endpoint;

import dev.postbox.Postbox;
import dev.postbox.micrometer.Backlogs;
import dev.postbox.operations.OperationsConfig;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.query.Backlog;
import dev.postbox.query.Monitoring;
import dev.postbox.query.PageRequest;
import dev.postbox.spring.autoconfigure.metrics.BacklogMonitor;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The read-only Actuator endpoint {@code postbox} ({@code GET /actuator/postbox}): the backlog of both event tables
 * (counts by status, oldest unfinished age), the relays (id, host, last heartbeat, alive) and the last errors (the
 * newest FAILED and DEAD outbox events: event_no, channel, topic, status, fail reason, time; never a payload), with
 * the time it was read. Backlog and relays are the {@link BacklogMonitor}'s last read, so the answer is at most one
 * refresh interval ({@code postbox.metrics.refresh-interval}, 10 s by default) old and a request never queries the
 * event tables; without a read yet (or with metrics off) they are read now. The last errors are read per request:
 * one bounded search of the status index ({@value #LAST_ERRORS} rows). It writes nothing. Thread-safe.
 */
@Endpoint(id = "postbox")
public final class PostboxEndpoint {

    /** How many of the newest FAILED and DEAD outbox events the endpoint shows. */
    public static final int LAST_ERRORS = 10;

    private final Postbox postbox;
    private final BacklogMonitor monitor;

    /**
     * @param postbox where to read
     * @param monitor the metrics' monitor whose last read is shown, or null (metrics off: read per request)
     */
    public PostboxEndpoint(Postbox postbox, BacklogMonitor monitor) {
        this.postbox = Objects.requireNonNull(postbox, "postbox");
        this.monitor = monitor;
    }

    /** The endpoint's JSON. */
    @ReadOperation
    public Map<String, Object> read() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("readAt", Instant.now().toString());
        Backlogs backlogs;
        if (monitor == null) {
            backlogs = Backlogs.read(postbox.queries());
        } else {
            backlogs = monitor.fresh().orElseGet(() -> monitor.latest() != null ? monitor.latest() : monitor.readNow());
            out.put("refreshInterval", monitor.interval().toString());
        }
        Map<String, Object> backlog = new LinkedHashMap<>();
        backlog.put("outbox", backlog(backlogs.outbox(), "publishing"));
        backlog.put("messages", backlog(backlogs.messages(), "processing"));
        out.put("backlog", backlog);
        List<Monitoring.Instance> instances = monitor == null ? null : monitor.instances();
        if (instances == null) {
            instances = postbox.queries().monitoring().instances(OperationsConfig.DEFAULT_ALIVE_WITHIN);
        }
        List<Map<String, Object>> relays = new ArrayList<>();
        for (Monitoring.Instance i : instances) {
            if ("relay".equals(i.role())) {
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("id", i.instance());
                r.put("host", i.host());
                r.put("lastHeartbeat", i.lastSeen() == null ? null : i.lastSeen().toString());
                r.put("alive", i.alive());
                relays.add(r);
            }
        }
        out.put("relays", relays);
        out.put("aliveWithin", OperationsConfig.DEFAULT_ALIVE_WITHIN.toString());
        List<Map<String, Object>> errors = new ArrayList<>();
        for (OutboxRecord r : postbox.queries().outboxSearch().search("status:dead,failed",
                PageRequest.first(LAST_ERRORS)).items()) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("eventNo", r.eventNo());
            e.put("channel", r.channel());
            e.put("topic", r.topic());
            e.put("status", r.status().name());
            e.put("failReason", r.failReason());
            e.put("retryCount", r.retryCount());
            e.put("time", r.updateTime() == null ? null : r.updateTime().toString());
            errors.add(e);
        }
        out.put("lastErrors", errors);
        return out;
    }

    private static Map<String, Object> backlog(Backlog b, String inProgress) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pending", b.pending());
        m.put(inProgress, b.inProgress());
        m.put("failed", b.failed());
        m.put("dead", b.dead());
        m.put("oldestUnfinishedAge", b.oldestUnfinishedAge().orElse(Duration.ZERO).toString());
        return m;
    }
}
