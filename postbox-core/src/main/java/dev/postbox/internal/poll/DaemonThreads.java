package dev.postbox.internal.poll;

import java.util.concurrent.ThreadFactory;

/**
 * Thread factories for the helper executors of background jobs (a lease renewal timer, a publisher's
 * calling thread): daemon threads, so that a job its application forgot to close never keeps the JVM
 * alive, named so that a thread dump says whose they are. The jobs' own loops run on {@link PollLoop}.
 */
public final class DaemonThreads {

    private DaemonThreads() {
    }

    /** A factory of daemon threads that are all called {@code name}. */
    public static ThreadFactory named(String name) {
        return work -> {
            Thread t = new Thread(work, name);
            t.setDaemon(true);
            return t;
        };
    }
}
