package dev.postbox.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A chaos role (a {@code main} of this module) or a server replica ({@link ServerReplica}) in its own JVM, on this
 * JVM's class path: its output goes to a log file in the run's directory; the ready line ({@link ChaosRole#READY}, or
 * the prefix given) and {@link ChaosRole#REPORT} lines are picked up on the way. Its standard input stays open: the
 * child halts when this JVM is gone.
 */
final class ChildProcess {

    private static final List<String> JVM_OPTIONS = List.of("-Xmx256m", "-Xss512k", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData");

    final String name;
    private final Process process;
    /** Whether a line of its output says it is ready. */
    private final Predicate<String> readyLine;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final List<String> reports = new CopyOnWriteArrayList<>();
    private final Thread pump;
    /** The highest CPU time seen for the process; the OS forgets it once the process is gone. */
    private final AtomicLong cpuNanos = new AtomicLong();

    private ChildProcess(String name, Process process, Path log, Predicate<String> readyLine) {
        this.name = name;
        this.process = process;
        this.readyLine = readyLine;
        this.pump = new Thread(() -> pump(log), "chaos-output-" + name);
        pump.setDaemon(true);
        pump.start();
        Thread sampler = new Thread(this::sampleWhileAlive, "chaos-cpu-" + name);
        sampler.setDaemon(true);
        sampler.start();
    }

    /** Samples the CPU time every {@value #CPU_SAMPLE_MS} ms, so that a process ending by itself loses little. */
    private void sampleWhileAlive() {
        try {
            while (process.isAlive()) {
                sampleCpu();
                Thread.sleep(CPU_SAMPLE_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final long CPU_SAMPLE_MS = 200;

    private void sampleCpu() {
        process.toHandle().info().totalCpuDuration().ifPresent(d -> cpuNanos.accumulateAndGet(d.toNanos(), Math::max));
    }

    /**
     * The process's CPU time so far, in nanoseconds: exact while it runs, and after it ended as of the last
     * sample (taken right before a kill or stop, else at most {@value #CPU_SAMPLE_MS} ms before its end).
     */
    long cpuNanos() {
        if (process.isAlive()) {
            sampleCpu();
        }
        return cpuNanos.get();
    }

    /**
     * Starts chaos role {@code main} with {@code args} in a small JVM (256 MB heap, serial GC, C1 only); its output is
     * appended to {@code log}; ready when it prints {@link ChaosRole#READY}.
     */
    static ChildProcess start(String name, Class<?> main, List<String> args, Path log) throws IOException {
        return start(name, JVM_OPTIONS, main, args, log, ChaosRole.READY::equals);
    }

    /**
     * Starts {@code main} with {@code args} in a JVM with {@code jvmOptions} (none: the JVM's own defaults, as a
     * deployed service would run); its output is appended to {@code log}; ready when it prints a line that
     * {@code readyLine} accepts.
     */
    static ChildProcess start(String name, List<String> jvmOptions, Class<?> main, List<String> args, Path log,
                              Predicate<String> readyLine) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath());
        command.add(main.getName());
        command.addAll(args);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        return new ChildProcess(name, p, log, readyLine);
    }

    /** The class path of this JVM; under Surefire the test class path (its own is a manifest-only jar). */
    private static String classPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    private void pump(Path log) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
             Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                     StandardOpenOption.APPEND)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (readyLine.test(line)) {
                    ready.countDown();
                } else if (line.startsWith(ChaosRole.REPORT)) {
                    reports.add(line.substring(ChaosRole.REPORT.length()));
                }
                out.write(line);
                out.write('\n');
                out.flush();
            }
        } catch (IOException e) {
            // the process is gone
        }
    }

    /** Waits until the child printed READY; false when it exited first or the time ran out. */
    boolean awaitReady(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (System.nanoTime() - deadline < 0) {
            if (ready.await(50, TimeUnit.MILLISECONDS)) {
                return true;
            }
            if (!process.isAlive()) {
                return false;
            }
        }
        return false;
    }

    /** Whether it printed READY (and may have exited since). */
    boolean ready() {
        return ready.getCount() == 0;
    }

    boolean alive() {
        return process.isAlive();
    }

    /** The exit code, or -1 while it runs. */
    int exitCode() {
        return process.isAlive() ? -1 : process.exitValue();
    }

    /** {@code kill -9}: SIGKILL, and waits until the process is gone. */
    void kill() throws InterruptedException {
        sampleCpu();
        process.destroyForcibly();
        process.waitFor();
        pump.join(2_000);
    }

    /** SIGTERM (the role's shutdown hook runs), then SIGKILL after {@code graceMs}. Never throws. */
    void stop(long graceMs) {
        try {
            sampleCpu();
            process.destroy();
            if (!process.waitFor(graceMs, TimeUnit.MILLISECONDS)) {
                kill();
            }
            pump.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    /** Waits up to {@code timeoutMs} for the process to end by itself; true when it did. */
    boolean awaitExit(long timeoutMs) throws InterruptedException {
        boolean done = process.waitFor(timeoutMs, TimeUnit.MILLISECONDS);
        if (done) {
            pump.join(2_000);
        }
        return done;
    }

    /** The REPORT lines it printed (without the prefix). */
    List<String> reports() {
        return List.copyOf(reports);
    }
}
