package dev.postbox.retention;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxStatus;

import java.time.Clock;
import java.time.Duration;

/**
 * An archiver in its own JVM for {@link RetentionKillContract}: archives PUBLISHED outbox rows in small
 * runs, saying {@code ARCHIVED <total>} on stdout after each, until it is killed with kill -9. Its
 * retention lease lasts 4 s (a window's three statements of at most 1 s and a lock wait of 1 s).
 * Arguments: JDBC URL, user.
 */
public final class ArchiverChild {

    private ArchiverChild() {
    }

    public static void main(String[] args) {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(args[0]);
        cfg.setUsername(args[1]);
        cfg.setMaximumPoolSize(2);
        try (HikariDataSource ds = new HikariDataSource(cfg)) {
            Postbox postbox = Postbox.builder(ds).clock(Clock.systemUTC()).source("child").build();
            RetentionPolicy policy = RetentionPolicy.builder().outbox(OutboxStatus.PUBLISHED, Duration.ofDays(7))
                    .archive(RetentionTable.OUTBOX).build();
            long total = 0;
            try (Retention retention = postbox.retention(policy).batchSize(100).maxRowsPerRun(100)
                    .instanceId("child").interval(Duration.ofSeconds(1)).statementTimeout(Duration.ofSeconds(1))
                    .lockTimeout(Duration.ofSeconds(1)).build()) {
                while (true) {
                    total += retention.runOnce().removed();
                    System.out.println("ARCHIVED " + total);
                    System.out.flush();
                }
            }
        }
    }
}
