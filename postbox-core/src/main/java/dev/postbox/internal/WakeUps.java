package dev.postbox.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The relays started from one Postbox in this JVM, to be woken after a commit. Thread-safe. */
public final class WakeUps {

    private final Set<Runnable> listeners = ConcurrentHashMap.newKeySet();

    public void add(Runnable wakeUp) {
        listeners.add(wakeUp);
    }

    public void remove(Runnable wakeUp) {
        listeners.remove(wakeUp);
    }

    /** Wakes every registered relay; cheap when none is idle. */
    public void fire() {
        listeners.forEach(Runnable::run);
    }
}
