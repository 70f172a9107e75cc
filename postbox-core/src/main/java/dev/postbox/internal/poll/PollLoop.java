package dev.postbox.internal.poll;

import org.slf4j.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The background loop every Postbox job runs on: its threads, the idle back-off between turns, wake-ups,
 * containment of what a turn throws, and a close that joins its threads. A job supplies one {@link Body}
 * per thread and keeps only its own policy (what a turn claims and does).
 * <p>
 * Back-off: after a turn that answers {@link Outcome#MORE} the next turn starts at once; after
 * {@link Outcome#SOME} the loop waits {@code pollMin}; after {@link Outcome#NONE} it waits, doubling the
 * wait from {@code pollMin} up to {@code pollMax}; after a turn that threw it waits at least {@code pollMax}.
 * {@link #wakeUp()} ends the current wait and resets the wait to {@code pollMin}. Thread-safe.
 */
public final class PollLoop {

    /** What a turn found. */
    public enum Outcome {
        /** More work is probably waiting: start the next turn at once. */
        MORE,
        /** Some work was done: wait the shortest pause. */
        SOME,
        /** Nothing to do: back off. */
        NONE
    }

    /** The work of one thread of the loop. */
    public interface Body {
        /** One turn; whatever it throws (an {@link Error} too) is logged and backed off from. */
        Outcome turn() throws Exception;

        /**
         * Called on the thread when it ends, however it ends: after {@link #close}, or when it died of
         * something {@link #turn()} could not contain ({@code died} not null). Must not throw.
         */
        default void exit(Throwable died) {
        }

        /**
         * Called by {@link PollLoop#close} on the closing thread, once {@link PollLoop#closing()} is true and
         * before it waits for the threads: a body whose turn blocks in a client (a broker's poll) ends that
         * wait here, e.g. with {@code KafkaConsumer.wakeup()}. The turn may be running or not, so this must
         * be safe to call from any thread at any time; what it throws is logged, never stops the close.
         */
        default void stop() {
        }
    }

    private final String owner;
    private final String threadName;
    private final int threadCount;
    private final long pollMinMs;
    private final long pollMaxMs;
    private final Logger log;
    private final Object signal = new Object();
    private final List<Thread> threads = new ArrayList<>();
    private final List<Body> bodies = new ArrayList<>();
    /** Counts {@link #wakeUp()}s: a thread that has not seen the latest one starts a turn without waiting. */
    private long wakeUps;
    /** Wake-ups for one thread each ({@link #wakeUpOne()}) not yet taken by a thread. */
    private int tokens;
    private volatile boolean closing;
    private volatile Throwable died;

    /**
     * @param owner      how logs name the job, e.g. {@code "Relay r1"}
     * @param threadName prefix of the thread names; with more than one thread {@code -<n>} is appended
     */
    public PollLoop(String owner, String threadName, int threads, Duration pollMin, Duration pollMax, Logger log) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1 (was " + threads + ")");
        }
        this.owner = owner;
        this.threadName = threadName;
        this.threadCount = threads;
        this.pollMinMs = Math.max(1, pollMin.toMillis());
        this.pollMaxMs = Math.max(pollMinMs, pollMax.toMillis());
        this.log = log;
    }

    /**
     * Starts the threads, each running the body {@code bodies} makes for its index (called on the starting
     * thread). Throws when started twice or after {@link #close}.
     */
    public synchronized void start(IntFunction<Body> bodies) {
        if (!threads.isEmpty()) {
            throw new IllegalStateException(owner + " was already started");
        }
        if (closing) {
            throw new IllegalStateException(owner + " was closed");
        }
        for (int i = 0; i < threadCount; i++) {
            Body body = bodies.apply(i);
            Thread t = new Thread(() -> run(body), threadCount == 1 ? threadName : threadName + "-" + i);
            t.setDaemon(true);
            threads.add(t);
            this.bodies.add(body);
        }
        threads.forEach(Thread::start);
    }

    /** Ends the current idle wait of every thread at once. */
    public void wakeUp() {
        synchronized (signal) {
            wakeUps++;
            signal.notifyAll();
        }
    }

    /**
     * Ends the idle wait of one thread, or, when every thread is busy, lets the next one that ends its turn
     * start another at once (a wake-up is taken by exactly one thread; at most one per thread is kept). For
     * jobs whose threads each take a share of the work: one new piece of work starts one turn, not all.
     */
    public void wakeUpOne() {
        synchronized (signal) {
            tokens = Math.min(tokens + 1, threadCount);
            signal.notify();
        }
    }

    /** Whether {@link #close} began. */
    public boolean closing() {
        return closing;
    }

    /** What killed a thread of the loop, or null. */
    public Throwable died() {
        return died;
    }

    /** Started, not closing, no thread died and every thread alive. */
    public boolean isRunning() {
        List<Thread> all;
        synchronized (this) {
            all = List.copyOf(threads);
        }
        return !closing && died == null && !all.isEmpty() && all.stream().allMatch(Thread::isAlive);
    }

    private void run(Body body) {
        Throwable death = null;
        try {
            loop(body);
        } catch (Throwable e) { // last resort: the loop contains everything it can
            death = e;
            log.error("{}: thread {} died: {}", owner, Thread.currentThread().getName(), Failures.describe(e), e);
        } finally {
            if (death == null && !closing) {
                death = new IllegalStateException("thread ended while not closing");
                log.error("{}: thread {} ended while the job was not closed", owner, Thread.currentThread().getName());
            }
            if (death != null && died == null) {
                died = death;
            }
            try {
                body.exit(death);
            } catch (Throwable e) {
                log.warn("{}: thread {} failed while ending: {}", owner, Thread.currentThread().getName(),
                        Failures.describe(e));
            }
        }
    }

    private void loop(Body body) {
        long idleMs = pollMinMs;
        long seenWakeUps;
        synchronized (signal) {
            seenWakeUps = wakeUps;
        }
        while (!closing) {
            try {
                Outcome outcome = body.turn();
                if (outcome == Outcome.MORE) {
                    idleMs = pollMinMs;
                    continue;
                }
                if (outcome == Outcome.SOME) {
                    idleMs = pollMinMs;
                }
            } catch (Throwable e) { // an Error as well: the next turn may well succeed
                log.warn("{}: cycle failed, backing off: {}", owner, Failures.describe(e));
                idleMs = Math.max(idleMs, pollMaxMs);
            }
            synchronized (signal) {
                // wait out the idle time unless woken: a notify whose wake-up another thread took first (one
                // that ended its turn meanwhile) is not this thread's, and it goes on waiting
                long deadline = System.nanoTime() + idleMs * 1_000_000L;
                long left = idleMs * 1_000_000L;
                while (wakeUps == seenWakeUps && tokens == 0 && !closing && left > 0) {
                    try {
                        signal.wait(Math.max(1, left / 1_000_000L));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    left = deadline - System.nanoTime();
                }
                if (wakeUps != seenWakeUps) {
                    seenWakeUps = wakeUps;
                    idleMs = pollMinMs;
                } else if (tokens > 0) {
                    tokens--;
                    idleMs = pollMinMs;
                } else {
                    idleMs = Math.min(idleMs * 2, pollMaxMs);
                }
            }
        }
    }

    /**
     * Stops the loop: no turn starts after this call began. Calls every body's {@link Body#stop()}, waits
     * up to {@code shutdownTimeout} for the threads to finish their turn, then interrupts those still
     * working and waits up to {@code grace} more. Returns the threads still alive after that (empty when
     * the loop is done); it never returns earlier while a thread still works. Called on a thread of the
     * loop (a listener), it neither waits for nor interrupts that thread, which ends after its turn.
     * Calling it again, or before {@link #start}, is harmless.
     */
    public List<Thread> close(Duration shutdownTimeout, Duration grace) {
        return close(shutdownTimeout, grace, true);
    }

    /**
     * Stops the loop like {@link #close(Duration, Duration)} but never interrupts: waits up to
     * {@code shutdownTimeout} and returns the threads still working, which end after their turn. For jobs
     * whose turn must not be cut short, e.g. a consumer that acknowledges the message in hand after it.
     */
    public List<Thread> closeUninterrupted(Duration shutdownTimeout) {
        return close(shutdownTimeout, Duration.ZERO, false);
    }

    private List<Thread> close(Duration shutdownTimeout, Duration grace, boolean interrupt) {
        List<Thread> toJoin;
        List<Body> toStop;
        synchronized (this) {
            closing = true;
            toJoin = List.copyOf(threads);
            toStop = List.copyOf(bodies);
        }
        toStop.forEach(this::stop);
        wakeUp();
        try {
            long deadline = System.nanoTime() + shutdownTimeout.toNanos();
            for (Thread t : toJoin) {
                join(t, deadline);
            }
            if (!interrupt) {
                return stillAlive(toJoin);
            }
            // never the calling thread: a loop thread closing its own loop must end its turn uninterrupted
            toJoin.stream().filter(t -> t.isAlive() && t != Thread.currentThread()).forEach(Thread::interrupt);
            long bound = System.nanoTime() + grace.toNanos();
            for (Thread t : toJoin) {
                join(t, bound);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return stillAlive(toJoin);
    }

    private static List<Thread> stillAlive(List<Thread> threads) {
        List<Thread> alive = new ArrayList<>();
        for (Thread t : threads) {
            if (t.isAlive() && t != Thread.currentThread()) {
                alive.add(t);
            }
        }
        return alive;
    }

    private void stop(Body body) {
        try {
            body.stop();
        } catch (Throwable e) {
            log.warn("{}: stopping a thread's work failed: {}", owner, Failures.describe(e));
        }
    }

    private static void join(Thread t, long deadlineNanos) throws InterruptedException {
        if (t == Thread.currentThread()) {
            return; // close() from the loop's own thread (e.g. a listener): it ends after this turn
        }
        long ms = Math.max(1, (deadlineNanos - System.nanoTime()) / 1_000_000);
        if (t.isAlive()) {
            t.join(ms);
        }
    }
}
