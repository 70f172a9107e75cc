package dev.postbox.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A private MariaDB server: {@code mariadb-install-db} into a temporary directory, then {@code mariadbd}
 * as a child process on its own port ({@code --no-defaults}: nothing of the shared service's configuration
 * is read; {@code --user=root} when the bench runs as root). Crashed with {@code kill -9}; InnoDB flushes
 * its log at every commit (the default), so a committed transaction survives.
 */
final class PrivateMariaDbServer extends PrivateServer {

    private final Path data;
    private Process process;

    private PrivateMariaDbServer(Path dir, int port) {
        super(dir, port);
        this.data = dir.resolve("data");
    }

    static PrivateMariaDbServer create() throws IOException, InterruptedException {
        PrivateMariaDbServer db = new PrivateMariaDbServer(tempDir("postbox-chaos-mariadb-", null), freePort());
        try {
            List<String> install = new ArrayList<>(List.of("mariadb-install-db", "--no-defaults",
                    "--datadir=" + db.data, "--auth-root-authentication-method=normal", "--skip-test-db"));
            if (asRoot()) {
                install.add("--user=root");
            }
            run(install, null);
        } catch (IOException | RuntimeException e) {
            db.close();
            throw e;
        }
        return db;
    }

    @Override
    String kind() {
        return "mariadb";
    }

    @Override
    String url() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/";
    }

    @Override
    String user() {
        return "root";
    }

    @Override
    BenchDatabase newDatabase() {
        MariaDbBenchDatabase db = new MariaDbBenchDatabase(url(), user());
        db.createDatabase();
        return db;
    }

    @Override
    synchronized void startServer() throws IOException {
        List<String> command = new ArrayList<>(List.of("mariadbd", "--no-defaults", "--datadir=" + data,
                "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + dir.resolve("mariadb.sock"),
                "--pid-file=" + dir.resolve("mariadb.pid"), "--skip-log-bin", "--innodb-buffer-pool-size=128M",
                "--innodb-flush-log-at-trx-commit=1", "--max-connections=200"));
        if (asRoot()) {
            command.add("--user=root");
        }
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.log").toFile())).start();
    }

    @Override
    synchronized void crash() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly(); // SIGKILL
            process.waitFor(60, TimeUnit.SECONDS);
            process = null;
        }
    }

    @Override
    String crashMethod() {
        return "kill -9 mariadbd";
    }

    @Override
    synchronized void stop() {
        try {
            crash(); // nothing of this server is kept
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
