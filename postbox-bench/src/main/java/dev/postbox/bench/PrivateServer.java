package dev.postbox.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A database server of this machine's installation that belongs to one run: its own data directory in a
 * temporary directory and its own loopback port, so that it can be crashed on purpose, which the shared
 * services must never be. {@link #close()} stops it and deletes the directory (also after a failure).
 */
abstract class PrivateServer implements AutoCloseable {

    private static final long START_TIMEOUT_MS = 120_000;

    final Path dir;
    final int port;

    PrivateServer(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    /** Creates and starts a private server of {@code kind} (postgres or mariadb). */
    static PrivateServer start(String kind) throws IOException, InterruptedException {
        PrivateServer server = switch (BenchDatabase.kind(kind)) {
            case "postgres" -> PrivatePostgresServer.create();
            case "mariadb" -> PrivateMariaDbServer.create();
            default -> throw new UsageException("chaos runs on --db postgres or mariadb (was '" + kind + "')");
        };
        try {
            server.startServer();
            server.awaitConnections();
            return server;
        } catch (IOException | InterruptedException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** postgres or mariadb. */
    abstract String kind();

    /** The server's JDBC URL (PostgreSQL: database {@code postgres}; MariaDB: ending in {@code /}). */
    abstract String url();

    abstract String user();

    /** A new throw-away database ({@code bench_*}) on this server, created. */
    abstract BenchDatabase newDatabase();

    /** Starts the server process (again, after a crash: crash recovery runs). */
    abstract void startServer() throws IOException, InterruptedException;

    /** Crashes the server like a power cut of its processes: nothing is flushed or shut down cleanly. */
    abstract void crash() throws IOException, InterruptedException;

    /** How {@link #crash()} crashes, for the output. */
    abstract String crashMethod();

    /** Stops the server if it runs; never throws. */
    abstract void stop();

    /** Starts the server again after {@link #crash()} and waits until it accepts connections. */
    final void restart() throws IOException, InterruptedException {
        startServer();
        awaitConnections();
    }

    final void awaitConnections() throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT_MS * 1_000_000L;
        SQLException last = null;
        while (System.nanoTime() - deadline < 0) {
            try (Connection c = DriverManager.getConnection(url(), user(), "")) {
                if (c.isValid(5)) {
                    return;
                }
            } catch (SQLException e) {
                last = e;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException(kind() + " on port " + port + " did not accept connections within "
                + START_TIMEOUT_MS + " ms: " + (last == null ? "?" : last.getMessage()) + "; see " + dir);
    }

    @Override
    public final void close() {
        stop();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("WARN could not delete " + dir + ": " + e);
        }
    }

    static boolean asRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** A temporary directory, owned by {@code owner} when running as root (the server refuses to run as root). */
    static Path tempDir(String prefix, String owner) throws IOException {
        Path dir = Files.createTempDirectory(prefix);
        if (owner != null && asRoot()) {
            UserPrincipal p = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(owner);
            Files.setOwner(dir, p);
        }
        return dir;
    }

    /** Runs {@code command} to its end; fails with its output when it fails. */
    static String run(List<String> command, Path logToShow) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(START_TIMEOUT_MS, TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            String log = logToShow != null && Files.isReadable(logToShow) ? Files.readString(logToShow) : "";
            throw new IOException(String.join(" ", command) + " failed:\n" + output + "\n" + tail(log));
        }
        return output;
    }

    static List<String> as(String user, List<String> command) {
        List<String> full = new ArrayList<>();
        if (user != null && asRoot()) {
            full.addAll(List.of("runuser", "-u", user, "--"));
        }
        full.addAll(command);
        return full;
    }

    private static String tail(String log) {
        return log.length() <= 4000 ? log : log.substring(log.length() - 4000);
    }
}
