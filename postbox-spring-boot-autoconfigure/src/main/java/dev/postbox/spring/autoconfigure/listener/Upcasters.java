package dev.postbox.spring.autoconfigure.listener;

import dev.postbox.spi.Envelope;
import dev.postbox.spring.Upcaster;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Every {@link Upcaster} of the application, by event type and the version it reads; chains them for a listener. */
final class Upcasters {

    /** An event version no upcaster path leads from to a version the listener accepts. */
    static final class EventVersionRefusedException extends RuntimeException {
        EventVersionRefusedException(String message) {
            super(message);
        }
    }

    private final Map<String, Upcaster> byKey = new HashMap<>();

    Upcasters(List<Upcaster> all) {
        for (Upcaster u : all) {
            if (u.eventType() == null || u.eventType().isBlank()) {
                throw new IllegalStateException("upcaster " + u + " has a blank event type");
            }
            if (u.from() < 1 || u.to() <= u.from()) {
                throw new IllegalStateException("upcaster " + u + " for " + u.eventType() + " goes from version "
                        + u.from() + " to " + u.to() + "; it must go from 1 or more to a greater version");
            }
            Upcaster before = byKey.putIfAbsent(key(u.eventType(), u.from()), u);
            if (before != null) {
                throw new IllegalStateException("two upcasters read " + u.eventType() + " version " + u.from() + ": "
                        + before + " and " + u + "; keep one");
            }
        }
    }

    private static String key(String type, int from) {
        return type + '\u0000' + from;
    }

    /**
     * {@code envelope} at a version {@code accepts} takes: itself, or upcast along the registered chain.
     *
     * @throws EventVersionRefusedException no chain leads there, naming the listener and the missing upcaster
     */
    Envelope toAccepted(Envelope envelope, ListenerMethod listener, String consumer) throws Exception {
        Envelope e = envelope;
        while (!listener.accepts(e.eventVersion())) {
            Upcaster u = byKey.get(key(e.eventType(), e.eventVersion()));
            if (u == null) {
                throw new EventVersionRefusedException("consumer '" + consumer + "' (" + listener.name() + ") accepts "
                        + e.eventType() + " version(s) " + listener.versions() + "; event " + e.eventNo() + " has version "
                        + envelope.eventVersion() + (e == envelope ? "" : ", upcast to " + e.eventVersion())
                        + ", and no upcaster reads " + e.eventType() + " version " + e.eventVersion()
                        + " (@PostboxUpcaster(eventType = \"" + e.eventType() + "\", from = " + e.eventVersion()
                        + ") or an Upcaster bean)");
            }
            String payload = u.upcast(e.payload(), e);
            if (payload == null) {
                throw new IllegalStateException("upcaster " + u + " returned null for event " + e.eventNo());
            }
            e = new Envelope(e.eventNo(), e.eventType(), u.to(), e.aggregateType(), e.aggregateId(), e.traceId(),
                    e.traceparent(), e.source(), e.createTime(), e.headers(), payload);
        }
        return e;
    }

    /** The event types that have upcasters, for start-up logs. */
    Set<String> keys() {
        return byKey.keySet();
    }
}
