package dev.postbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A private PostgreSQL cluster: {@code initdb} into a temporary directory, {@code pg_ctl} on its own port,
 * run as user {@code postgres} when the bench runs as root. Crashed with {@code pg_ctl stop -m immediate}
 * (no checkpoint; the next start runs crash recovery). fsync and synchronous commit on, like production.
 */
final class PrivatePostgresServer extends PrivateServer {

    private static final String OS_USER = "postgres";
    private final Path bin;
    private final Path data;

    private PrivatePostgresServer(Path bin, Path dir, int port) {
        super(dir, port);
        this.bin = bin;
        this.data = dir.resolve("data");
    }

    static PrivatePostgresServer create() throws IOException, InterruptedException {
        Path bin = binaries();
        Path dir = tempDir("postbox-chaos-pg-", OS_USER);
        PrivatePostgresServer pg = new PrivatePostgresServer(bin, dir, freePort());
        try {
            run(as(OS_USER, List.of(bin.resolve("initdb").toString(), "-D", pg.data.toString(), "-U", "postgres",
                    "-A", "trust", "-E", "UTF8", "--no-sync")), null);
        } catch (IOException | RuntimeException e) {
            pg.close();
            throw e;
        }
        return pg;
    }

    @Override
    String kind() {
        return "postgres";
    }

    @Override
    String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    @Override
    String user() {
        return "postgres";
    }

    @Override
    BenchDatabase newDatabase() {
        PostgresBenchDatabase db = new PostgresBenchDatabase(url(), user());
        db.createDatabase();
        return db;
    }

    @Override
    void startServer() throws IOException, InterruptedException {
        run(as(OS_USER, List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l",
                dir.resolve("server.log").toString(), "-w", "-t", "120", "-o", "-p " + port + " -k " + dir
                        + " -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on -c shared_buffers=64MB"
                        + " -c max_connections=100", "start")), dir.resolve("server.log"));
    }

    @Override
    void crash() throws IOException, InterruptedException {
        run(as(OS_USER, List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "-w",
                "stop")), dir.resolve("server.log"));
    }

    @Override
    String crashMethod() {
        return "pg_ctl stop -m immediate";
    }

    @Override
    void stop() {
        if (!Files.exists(data.resolve("postmaster.pid"))) {
            return;
        }
        try {
            crash(); // nothing of this cluster is kept
        } catch (IOException | InterruptedException | RuntimeException e) {
            System.err.println("WARN could not stop the private PostgreSQL on port " + port + ": " + e);
        }
    }

    /** {@code /usr/lib/postgresql/<newest>/bin}, or {@code pg_config --bindir}. */
    private static Path binaries() throws IOException, InterruptedException {
        Path root = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(root)) {
            try (Stream<Path> versions = Files.list(root)) {
                Path found = versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb")))
                        .max(Comparator.comparingInt(b -> version(b.getParent().getFileName().toString())))
                        .orElse(null);
                if (found != null) {
                    return found;
                }
            }
        }
        try {
            Path bin = Path.of(run(List.of("pg_config", "--bindir"), null).strip());
            if (Files.isExecutable(bin.resolve("initdb"))) {
                return bin;
            }
        } catch (IOException notInstalled) {
            // reported below
        }
        throw new IllegalStateException("PostgreSQL server binaries (initdb, pg_ctl) not found: install the"
                + " postgresql package (scripts/services.sh does)");
    }

    private static int version(String name) {
        String digits = name.replaceAll("\\D", "");
        return digits.isEmpty() ? 0 : Integer.parseInt(digits);
    }
}
