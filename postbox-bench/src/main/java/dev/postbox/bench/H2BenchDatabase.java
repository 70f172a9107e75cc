package dev.postbox.bench;

import java.util.OptionalLong;

/** An in-memory H2 database in this JVM, kept until {@link #drop()}. */
final class H2BenchDatabase extends BenchDatabase {

    @Override
    String kind() {
        return "h2";
    }

    @Override
    String url() {
        return "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
    }

    @Override
    String user() {
        return "sa";
    }

    @Override
    void createDatabase() {
        execute("SELECT 1");
    }

    @Override
    void drop() {
        try {
            execute("SHUTDOWN");
        } catch (RuntimeException e) {
            System.err.println("WARN could not shut down H2 " + name + ": " + e.getMessage());
        }
    }

    @Override
    String describe() {
        return "server=H2 " + org.h2.engine.Constants.FULL_VERSION + " in memory";
    }

    @Override
    OptionalLong commits() {
        return OptionalLong.empty();
    }

    @Override
    void analyze(String table) {
        execute("ANALYZE TABLE " + table);
    }

    @Override
    long otherSessions() {
        return 0;
    }
}
