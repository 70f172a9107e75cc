package dev.postbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Map;

/**
 * What the chaos processes (producer, relay, sink) share: their command line, a pool, and dying with the
 * bench. A role process reads its standard input, which the bench holds open; when the bench is gone
 * (even by {@code kill -9}) the pipe closes and the role halts at once, so no process outlives a run.
 */
final class ChaosRole {

    /** Printed on stdout once the role is up. */
    static final String READY = "READY";
    /** Prefix of the line a role prints with its counts before it exits. */
    static final String REPORT = "REPORT ";

    private ChaosRole() {
    }

    /** Parses {@code args} against {@code defaults}, starts watching the parent; exits 2 on a bad command line. */
    static Options start(String role, String[] args, Map<String, String> defaults) {
        watchParent();
        try {
            return Options.parse(Arrays.asList(args), defaults);
        } catch (UsageException e) {
            System.err.println("error: chaos " + role + ": " + e.getMessage());
            System.exit(2);
            throw e;
        }
    }

    /** Halts this process as soon as its standard input closes: the bench that started it is gone. */
    static void watchParent() {
        Thread watch = new Thread(ChaosRole::haltWhenParentGone, "chaos-parent-watch");
        watch.setDaemon(true);
        watch.start();
    }

    private static void haltWhenParentGone() {
        InputStream in = System.in;
        byte[] buffer = new byte[256];
        try {
            while (in.read(buffer) >= 0) {
                // the parent writes nothing; reading only waits for the end of the pipe
            }
        } catch (IOException closed) {
            // the same: the parent is gone
        }
        Runtime.getRuntime().halt(3);
    }

    /** A small pool on the run's database, auto-commit off, failing fast while the database is down. */
    static HikariDataSource pool(String name, String url, String user, int size) {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(url);
        cfg.setUsername(user);
        cfg.setPoolName(name);
        cfg.setMaximumPoolSize(size);
        cfg.setMinimumIdle(1);
        cfg.setAutoCommit(false);
        cfg.setConnectionTimeout(5_000);
        cfg.setValidationTimeout(2_000);
        cfg.setInitializationFailTimeout(-1); // start even while the database is down (a restart after a crash)
        cfg.setRegisterMbeans(false);
        return new HikariDataSource(cfg);
    }
}
