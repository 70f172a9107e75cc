package dev.postbox.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throw-away PostgreSQL cluster of this machine's installation (initdb into a temporary directory, own
 * port), for tests that must crash the database, which the shared service must never be. Run as the
 * {@code postgres} user when the tests run as root (PostgreSQL refuses to run as root). Fails loudly when
 * the PostgreSQL server binaries are not installed.
 */
public final class PrivatePostgres implements AutoCloseable {

    private final Path bin;
    private final Path dir;
    private final Path data;
    private final int port;

    private PrivatePostgres(Path bin, Path dir, int port) {
        this.bin = bin;
        this.dir = dir;
        this.data = dir.resolve("data");
        this.port = port;
    }

    /** Creates and starts a cluster with trust authentication for user {@code postgres}. */
    public static PrivatePostgres start() throws IOException, InterruptedException {
        Path bin = binaries();
        Path dir = Files.createTempDirectory("postbox-pg-");
        if (asRoot()) {
            UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            Files.setOwner(dir, postgres);
        }
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        PrivatePostgres pg = new PrivatePostgres(bin, dir, port);
        pg.run(List.of(bin.resolve("initdb").toString(), "-D", pg.data.toString(), "-U", "postgres", "-A", "trust",
                "-E", "UTF8", "--no-sync"));
        pg.startServer();
        return pg;
    }

    public String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    /** Starts the server (again) and waits until it accepts connections. */
    public void startServer() throws IOException, InterruptedException {
        run(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", dir.resolve("server.log").toString(),
                "-w", "-t", "60", "-o", "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=on"
                        + " -c synchronous_commit=on -c shared_buffers=64MB", "start"));
    }

    /**
     * Crashes the server: immediate shutdown, the documented way to stop PostgreSQL like a power cut of its
     * processes. Nothing is flushed; WAL still in its buffers is lost; the next start runs crash recovery.
     */
    public void crash() throws IOException, InterruptedException {
        run(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "-w", "stop"));
    }

    @Override
    public void close() throws IOException, InterruptedException {
        try {
            run(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "-w", "stop"));
        } catch (IOException ignored) {
            // not running
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private void run(List<String> command) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>();
        if (asRoot()) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(command);
        Process p = new ProcessBuilder(full).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            String log = Files.exists(dir.resolve("server.log")) && Files.isReadable(dir.resolve("server.log"))
                    ? Files.readString(dir.resolve("server.log")) : "";
            throw new IOException(String.join(" ", full) + " failed:\n" + output + "\n" + log);
        }
    }

    private static boolean asRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** The server binaries: {@code pg_config --bindir}, else the newest {@code /usr/lib/postgresql/N/bin}. */
    private static Path binaries() throws IOException, InterruptedException {
        try {
            Process p = new ProcessBuilder("pg_config", "--bindir").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (p.waitFor() == 0 && Files.isExecutable(Path.of(out, "initdb"))) {
                return Path.of(out);
            }
        } catch (IOException notInstalled) {
            // fall through
        }
        Path root = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(root)) {
            try (Stream<Path> versions = Files.list(root)) {
                Path found = versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb")))
                        .max(Comparator.comparing(b -> Integer.parseInt(b.getParent().getFileName().toString().replaceAll("\\D", "0"))))
                        .orElse(null);
                if (found != null) {
                    return found;
                }
            }
        }
        throw new IllegalStateException("PostgreSQL server binaries (initdb, pg_ctl) not found: install the"
                + " postgresql package (scripts/services.sh does)");
    }
}
