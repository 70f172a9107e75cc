package dev.postbox.bench;

import dev.postbox.outbox.OutboxStatus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The two sources of {@code scripts/bench server}: a throw-away PostgreSQL schema and a throw-away MariaDB database
 * ({@link BenchContext}), each with Postbox's tables. Source {@code i} holds the events {@code E-<i*n>..E-<i*n+n-1>}
 * of a drain of {@code n} per source, so the destination tells them apart by seq. Closing drops both.
 */
final class ServerSources implements AutoCloseable {

    /** A source's name in the server's configuration and in the output lines. */
    record Source(String name, BenchContext ctx) {

        /** Rows of this source's outbox not PUBLISHED yet. */
        long unpublished() {
            return ctx.countOutbox("publish_status <> " + OutboxStatus.PUBLISHED.code());
        }

        long published() {
            return ctx.countOutbox("publish_status = " + OutboxStatus.PUBLISHED.code());
        }

        /** Rows that needed more than one attempt (a retry, e.g. a destination's in-flight bound full). */
        long retried() {
            return ctx.countOutbox("retry_count > 0");
        }
    }

    final List<Source> sources = new ArrayList<>();

    private ServerSources() {
    }

    /** Creates both databases with Postbox's tables (each with a pool of 2 for the preload). */
    static ServerSources open() {
        ServerSources s = new ServerSources();
        try {
            s.sources.add(new Source("pg", BenchContext.open("postgres", 2, true)));
            s.sources.add(new Source("mariadb", BenchContext.open("mariadb", 2, true)));
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
        return s;
    }

    /** Empties every outbox (TRUNCATE: no dead rows left for the next drain) and fills each with {@code n} pending events. */
    void refill(int n, int aggregates) throws Exception {
        for (int i = 0; i < sources.size(); i++) {
            BenchContext ctx = sources.get(i).ctx();
            ctx.db.execute("TRUNCATE TABLE " + ctx.outbox());
            Preload.pending(ctx, n, aggregates, (long) i * n);
        }
    }

    /**
     * The server's configuration for these sources: one relay each (batch {@code batch}), routed on channel MQ to one
     * NATS destination under {@code subjectPrefix} with {@code maxInFlight}; health on a free port of loopback; each
     * replica's instance id is the JVM's own (pid@host).
     */
    Path writeConfig(Path dir, String natsUrl, String subjectPrefix, int batch, int maxInFlight) throws IOException {
        StringBuilder y = new StringBuilder("server: {address: 127.0.0.1, port: 0}\nsources:\n");
        for (Source s : sources) {
            y.append("  ").append(s.name()).append(": {jdbc-url: '").append(s.ctx().db.url()).append("', username: '")
                    .append(s.ctx().db.user()).append("', relay: {batch-size: ").append(batch).append("}}\n");
        }
        y.append("destinations:\n  nats: {type: nats, url: '").append(natsUrl).append("', subject-prefix: '")
                .append(subjectPrefix).append("', max-in-flight: ").append(maxInFlight).append("}\nroutes:\n");
        for (Source s : sources) {
            y.append("  - {source: ").append(s.name()).append(", channel: MQ, destination: nats}\n");
        }
        Path file = dir.resolve("server.yml");
        Files.writeString(file, y.toString());
        return file;
    }

    /** Server and settings of each database, for the record. */
    List<String> describe() {
        List<String> out = new ArrayList<>();
        for (Source s : sources) {
            out.add("DB source=" + s.name() + " kind=" + s.ctx().db.kind() + " name=" + s.ctx().db.name + " "
                    + s.ctx().db.describe());
            long others = s.ctx().db.otherSessions();
            if (others > 0) {
                out.add("WARN " + others + " other client sessions are connected to the " + s.ctx().db.kind()
                        + " server: they may skew timings");
            }
        }
        return out;
    }

    @Override
    public void close() {
        for (Source s : sources) {
            s.ctx().close();
        }
    }
}
