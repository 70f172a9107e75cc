package dev.postbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code count} postbox-server processes ({@link ServerReplica}) on one configuration file, started at once with the
 * JVM's default options (as a deployed server would run; no bench tuning), each logging to {@code replica-<i>.log}
 * in the run's directory. Tracks when each printed its running line, their CPU, and whether one died.
 */
final class ServerReplicas implements AutoCloseable {

    /** SIGTERM first: the server stops claiming and gives back what it holds; SIGKILL after this. */
    private static final long STOP_GRACE_MS = 20_000;

    private final List<ChildProcess> processes = new ArrayList<>();
    private final List<Path> logs = new ArrayList<>();
    private final long startNanos;
    private long lastReadyNanos = -1;
    private long deliveredWhenRunning = -1;

    private ServerReplicas(long startNanos) {
        this.startNanos = startNanos;
    }

    static ServerReplicas start(int count, Path config, Path dir, long startNanos) throws IOException {
        ServerReplicas r = new ServerReplicas(startNanos);
        try {
            for (int i = 0; i < count; i++) {
                Path log = dir.resolve("replicas" + count + "-" + i + ".log");
                r.logs.add(log);
                r.processes.add(ChildProcess.start("replica-" + i, List.of(), ServerReplica.class,
                        List.of("run", config.toString()), log, line -> line.startsWith(ServerReplica.RUNNING)));
            }
        } catch (IOException | RuntimeException e) {
            r.close();
            throw e;
        }
        return r;
    }

    /**
     * A replica that exited (with its code and the end of its log), or null while all run; notes the moment every
     * replica was running and {@code delivered}, the events delivered by then.
     */
    String problem(long delivered) {
        boolean allReady = true;
        for (int i = 0; i < processes.size(); i++) {
            ChildProcess p = processes.get(i);
            if (!p.alive()) {
                return p.name + " exited with code " + p.exitCode() + " (log " + logs.get(i) + "): " + tail(logs.get(i));
            }
            allReady &= p.ready();
        }
        if (allReady && lastReadyNanos < 0) {
            lastReadyNanos = System.nanoTime();
            deliveredWhenRunning = delivered;
        }
        return null;
    }

    /** Milliseconds from the start until every replica was running, or -1 if not seen. */
    long allRunningMillis() {
        return lastReadyNanos < 0 ? -1 : (lastReadyNanos - startNanos) / 1_000_000;
    }

    /**
     * The rate once every replica was running: the events delivered after that moment over the time from it until
     * {@code doneSeconds} after the start; NaN when they were not all running before the end.
     */
    double runningEps(long events, double doneSeconds) {
        double from = (lastReadyNanos - startNanos) / 1e9;
        return lastReadyNanos < 0 || doneSeconds <= from ? Double.NaN : (events - deliveredWhenRunning) / (doneSeconds - from);
    }

    /** CPU nanoseconds of every replica process so far. */
    long cpuNanos() {
        long sum = 0;
        for (ChildProcess p : processes) {
            sum += p.cpuNanos();
        }
        return sum;
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Stops every replica (SIGTERM to all, then waits; SIGKILL after the grace). Never throws. */
    @Override
    public void close() {
        List<Thread> stopping = new ArrayList<>();
        for (ChildProcess p : processes) {
            Thread t = new Thread(() -> p.stop(STOP_GRACE_MS), "stop-" + p.name);
            t.start();
            stopping.add(t);
        }
        for (Thread t : stopping) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        processes.clear();
    }
}
