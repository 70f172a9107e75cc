package dev.postbox.bench;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxStatus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The database of {@code scripts/bench tenants}: one throw-away PostgreSQL schema (or MariaDB database,
 * {@link BenchContext}) holding two tenants' Postbox table sets, {@value #A_PREFIX}* and {@value #B_PREFIX}*, which
 * postbox-server relays as one source with {@code tenants: {a: ta_, b: tb_}}: one bulkhead (relay, pool) each. The
 * producers' business table {@link BenchContext#ORDERS} is tenant B's. (BenchContext's own tables, of the default
 * prefix, stay empty.) Closing drops the database.
 */
final class TenantTables implements AutoCloseable {

    static final String SOURCE = "shop";
    static final String A_PREFIX = "ta_";
    static final String B_PREFIX = "tb_";

    /** One tenant's table set, written through its own Postbox on the shared pool (writers NOTIFY on PostgreSQL). */
    record Tenant(String name, Postbox postbox, BenchContext ctx) {

        String outbox() {
            return postbox.tables().outbox();
        }

        long unpublished() {
            return ctx.db.queryLong("SELECT COUNT(*) FROM " + outbox() + " WHERE publish_status <> "
                    + OutboxStatus.PUBLISHED.code());
        }

        long published() {
            return ctx.db.queryLong("SELECT COUNT(*) FROM " + outbox() + " WHERE publish_status = "
                    + OutboxStatus.PUBLISHED.code());
        }

        /** Rows that needed more than one attempt (e.g. held back at the destination's in-flight bound). */
        long retried() {
            return ctx.db.queryLong("SELECT COUNT(*) FROM " + outbox() + " WHERE retry_count > 0");
        }
    }

    final BenchContext ctx;
    final Tenant a;
    final Tenant b;

    private TenantTables(BenchContext ctx, Tenant a, Tenant b) {
        this.ctx = ctx;
        this.a = a;
        this.b = b;
    }

    /** Creates the database and both table sets; {@code poolSize}: the producers' connections. */
    static TenantTables open(String kind, int poolSize) {
        BenchContext ctx = BenchContext.open(kind, poolSize, true);
        try {
            Tenant a = new Tenant("a", tenant(ctx, A_PREFIX), ctx);
            Tenant b = new Tenant("b", tenant(ctx, B_PREFIX), ctx);
            return new TenantTables(ctx, a, b);
        } catch (RuntimeException e) {
            ctx.close();
            throw e;
        }
    }

    private static Postbox tenant(BenchContext ctx, String prefix) {
        Postbox p = Postbox.builder(ctx.pool).tablePrefix(prefix).source("bench").build();
        p.schema().install();
        return p;
    }

    /** Empties both outboxes and the business table (TRUNCATE: nothing left of the previous phase). */
    void truncate() {
        ctx.db.execute("TRUNCATE TABLE " + a.outbox(), "TRUNCATE TABLE " + b.outbox(), "TRUNCATE TABLE " + BenchContext.ORDERS);
    }

    /**
     * The server's file: source {@value #SOURCE} with both tenants (batch {@code batch}, every other relay setting the
     * server's default), channel MQ routed to one NATS destination under {@code subjectPrefix} with
     * {@code maxInFlight}; health on a free port of loopback.
     */
    Path writeConfig(Path dir, String natsUrl, String subjectPrefix, int batch, int maxInFlight) throws IOException {
        String yaml = """
                server: {address: 127.0.0.1, port: 0}
                sources:
                  %s:
                    jdbc-url: '%s'
                    username: '%s'
                    tenants: {%s: %s, %s: %s}
                    relay: {batch-size: %d}
                destinations:
                  nats: {type: nats, url: '%s', subject-prefix: '%s', max-in-flight: %d}
                routes:
                  - {source: %s, channel: MQ, destination: nats}
                """.formatted(SOURCE, ctx.db.url(), ctx.db.user(), a.name(), A_PREFIX, b.name(), B_PREFIX, batch,
                natsUrl, subjectPrefix, maxInFlight, SOURCE);
        Path file = dir.resolve("tenants.yml");
        Files.writeString(file, yaml);
        return file;
    }

    /** The database, for the record. */
    List<String> describe() {
        String db = "DB kind=" + ctx.db.kind() + " name=" + ctx.db.name + " " + ctx.db.describe() + " core=" + Bench.revision()
                + " tables=" + a.outbox() + "," + b.outbox()
                + " notify_listen=" + ctx.db.kind().equals("postgres");
        long others = ctx.db.otherSessions();
        return others > 0 ? List.of(db, "WARN " + others + " other client sessions are connected to the " + ctx.db.kind()
                + " server: they may skew timings") : List.of(db);
    }

    @Override
    public void close() {
        ctx.close();
    }
}
