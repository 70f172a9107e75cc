package dev.postbox.server;

import dev.postbox.testing.Await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code postbox-server} as a real OS process on this JVM's class path ({@code java ... PostboxServerCommand ARGS}):
 * its standard output and error go to a log file (or two) under {@code target/}, read back to find the health port and
 * to diagnose a failure. {@link #kill9()} is SIGKILL (no shutdown hook runs), {@link #terminate()} SIGTERM (the graceful
 * stop), {@link #freeze()} SIGSTOP. {@link #close()} always SIGKILLs what is still alive: tests close every process they
 * start in a {@code finally} or {@code @AfterEach}.
 */
final class ServerProcess implements AutoCloseable {

    /** Small JVMs: up to four of them share two cores with the services during a test. */
    private static final List<String> JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-XX:-UsePerfData");
    private static final Pattern RUNNING = Pattern.compile("postbox-server running: health on port (\\d+)");

    final String name;
    final Path out;
    final Path err;
    private final Process process;

    private ServerProcess(String name, Process process, Path out, Path err) {
        this.name = name;
        this.process = process;
        this.out = out;
        this.err = err;
    }

    /** {@code postbox-server args...}, standard output and error together in {@code log}. */
    static ServerProcess start(String name, Path log, String... args) {
        return start(name, log, null, Map.of(), args);
    }

    /**
     * {@code postbox-server args...} with {@code env} added to this process's environment; standard error to {@code err}
     * when it is given, else into {@code out} with standard output.
     */
    static ServerProcess start(String name, Path out, Path err, Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_OPTIONS);
        command.add("-cp");
        command.add(classPath());
        command.add(PostboxServerCommand.class.getName());
        command.addAll(List.of(args));
        ProcessBuilder b = new ProcessBuilder(command).redirectOutput(out.toFile());
        if (err == null) {
            b.redirectErrorStream(true);
        } else {
            b.redirectError(err.toFile());
        }
        b.environment().putAll(env);
        try {
            Files.createDirectories(out.toAbsolutePath().getParent());
            return new ServerProcess(name, b.start(), out, err);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name + ": " + command, e);
        }
    }

    /** This JVM's class path; under Surefire the test class path (its own may be a manifest-only jar). */
    private static String classPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** What the process wrote to its log (standard output, and standard error when they share the file). */
    String log() {
        return read(out);
    }

    /** What it wrote to standard error, when that has a file of its own. */
    String stderr() {
        return err == null ? "" : read(err);
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits until the server printed its health port and {@code /health/ready} answers 200 (every relay running, its
     * clock trusted); fails with the log if the process exits first. Returns the port.
     */
    int awaitReady(Duration timeout) {
        int[] port = {0};
        Await.until(name + " printing its health port", timeout, () -> {
            assertThat(process.isAlive()).as(name + " exited before it was running (code %s); its log:%n%s",
                    process.isAlive() ? "-" : process.exitValue(), log()).isTrue();
            Matcher m = RUNNING.matcher(log());
            if (m.find()) {
                port[0] = Integer.parseInt(m.group(1));
            }
            return port[0] > 0;
        });
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        String[] last = {""};
        Await.until(name + " ready (/health/ready 200)", timeout, () -> {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port[0]
                        + "/health/ready")).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                last[0] = r.statusCode() + " " + r.body();
                return r.statusCode() == 200 && r.body().contains("\"status\":\"UP\"");
            } catch (IOException e) {
                last[0] = e.toString();
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }, () -> last[0]);
        return port[0];
    }

    /** kill -9: no shutdown hook, no close(); waits until the process is gone. */
    void kill9() {
        process.destroyForcibly();
        awaitExit(Duration.ofSeconds(30));
    }

    /** SIGTERM: the shutdown hook closes the server gracefully. Does not wait. */
    void terminate() {
        process.destroy();
    }

    /** SIGSTOP: the process stops where it is (its leases are no longer renewed), holding its sockets open. */
    void freeze() {
        signal("-STOP");
    }

    /** SIGCONT after {@link #freeze()}. */
    void thaw() {
        signal("-CONT");
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).inheritIO().start();
            assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).as("kill " + signal + " " + name)
                    .isTrue();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Waits for the process to end; its exit code, or fails naming {@code timeout} with the log. */
    int awaitExit(Duration timeout) {
        try {
            boolean done = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(done).as(name + " ended within " + timeout + "; its log:%n%s", log()).isTrue();
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** SIGKILL if still alive (a frozen process too), and waits for it. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
