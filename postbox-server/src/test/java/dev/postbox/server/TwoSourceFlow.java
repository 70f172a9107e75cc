package dev.postbox.server;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.spi.Envelope;
import dev.postbox.testing.Await;
import dev.postbox.testing.TestDatabase;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongPredicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The world of the server-process tests: a PostgreSQL schema and a MariaDB database of their own with Postbox's tables
 * ({@value #PREFIX}*), PostgreSQL's events routed to a RabbitMQ exchange (with a queue this fixture consumes in arrival
 * order) and MariaDB's to a JetStream stream (read back in stream order); a writer thread per database writing events
 * of {@value #AGGREGATES} aggregates, each aggregate's numbered 1, 2, 3...; and the check of the whole history: nothing
 * lost, nothing unknown, each aggregate's events in order. Everything is named per run and removed by {@link #close()}.
 */
final class TwoSourceFlow implements AutoCloseable {

    static final String PREFIX = "srv_";
    static final int AGGREGATES = 8;
    static final String RABBIT_HOST = System.getProperty("postbox.test.rabbitmq.host", "127.0.0.1");
    static final String NATS_URL = System.getProperty("postbox.test.nats.url", "nats://127.0.0.1:4222");

    final String run = UUID.randomUUID().toString().substring(0, 8);
    final Path dir;
    final TestDatabase pg;
    final TestDatabase maria;
    final String exchange = "postbox-process-" + run;
    final String stream = "POSTBOX_PROCESS_" + run.toUpperCase(Locale.ROOT);
    final String subject = "process_" + run + ".events";
    final Writer pgWriter;
    final Writer mariaWriter;
    private final com.rabbitmq.client.Connection rabbit;
    private final Channel channel;
    private final List<String> fromRabbit = Collections.synchronizedList(new ArrayList<>());

    TwoSourceFlow(String test) throws Exception {
        dir = Path.of("target", "server-process", test + "-" + run);
        Files.createDirectories(dir);
        pg = TestDatabase.postgres(null);
        maria = TestDatabase.mariadb(null);
        Postbox.builder(pg.dataSource()).tablePrefix(PREFIX).build().schema().install();
        Postbox.builder(maria.dataSource()).tablePrefix(PREFIX).build().schema().install();
        ConnectionFactory f = new ConnectionFactory();
        f.setHost(RABBIT_HOST);
        rabbit = f.newConnection("postbox-server-process-test");
        channel = rabbit.createChannel();
        channel.exchangeDeclare(exchange, "topic", false, false, null);
        channel.queueDeclare(exchange, false, false, false, null);
        channel.queueBind(exchange, exchange, "#");
        channel.basicConsume(exchange, true, (tag, delivery) -> fromRabbit.add(String.valueOf(
                delivery.getProperties().getHeaders().get(Envelope.EVENT_NO))), tag -> { });
        try (Connection nats = Nats.connect(NATS_URL)) {
            nats.jetStreamManagement().addStream(StreamConfiguration.builder().name(stream).subjects(subject)
                    .storageType(StorageType.Memory).build());
        }
        pgWriter = new Writer("pg", pg, "RABBITMQ", exchange);
        mariaWriter = new Writer("maria", maria, "NATS", subject);
    }

    /**
     * The server's configuration: both sources with a short lease (a dead server's events move again 2 s after its last
     * renewal), both destinations, one route each. {@code instanceId} null keeps the default (host and process id).
     */
    Path config(String file, String instanceId) throws Exception {
        String relay = "{lease-duration: 2s, poll-interval-max: 100ms, batch-size: 50, retry-base: 200ms, retry-cap: 1s}";
        String yaml = """
                server: {address: 127.0.0.1, port: 0%s}
                sources:
                  orders-pg: {jdbc-url: '%s', username: %s, table-prefix: %s, relay: %s}
                  billing-mariadb: {jdbc-url: '%s', username: %s, table-prefix: %s, relay: %s}
                destinations:
                  rabbit: {type: rabbitmq, host: %s}
                  nats: {type: nats, url: '%s'}
                routes:
                  - {source: orders-pg, channel: RABBITMQ, destination: rabbit}
                  - {source: billing-mariadb, channel: NATS, destination: nats}
                """.formatted(instanceId == null ? "" : ", instance-id: " + instanceId, pg.jdbcUrl(), pg.user(), PREFIX,
                relay, maria.jdbcUrl(), maria.user(), PREFIX, relay, RABBIT_HOST, NATS_URL);
        Path path = dir.resolve(file);
        Files.writeString(path, yaml);
        return path;
    }

    Path log(String name) {
        return dir.resolve(name + ".log");
    }

    void startWriting() {
        pgWriter.start();
        mariaWriter.start();
    }

    /** Stops both writers; fails if either failed to write. */
    void stopWriting() throws InterruptedException {
        pgWriter.finish();
        mariaWriter.finish();
    }

    /** Rows of both outboxes matching {@code where} (SQL on {@value #PREFIX}outbox_event). */
    long count(TestDatabase db, String where) {
        try (java.sql.Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + PREFIX + "outbox_event WHERE " + where);
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    long published(TestDatabase db) {
        return count(db, "publish_status = " + OutboxStatus.PUBLISHED.code());
    }

    long leased(TestDatabase db) {
        return count(db, "publish_status = " + OutboxStatus.PUBLISHING.code());
    }

    /**
     * Freezes {@code server} (SIGSTOP) until, with what it had already sent landed, the databases show it holding leases
     * ({@code locked_by LIKE holder}): in both databases at once if that happens within 10 s, else in one; between
     * tries it runs on. Returns the leases held in PostgreSQL and MariaDB and the number of tries; the server stays
     * frozen for the caller to kill.
     */
    long[] freezeHoldingLeases(ServerProcess server, String holder) {
        long[] held = new long[3];
        long since = System.nanoTime();
        String where = "publish_status = " + OutboxStatus.PUBLISHING.code() + " AND locked_by LIKE '" + holder + "'";
        Await.until(server.name + " frozen while holding leases", Duration.ofSeconds(30), () -> {
            server.freeze();
            try {
                Thread.sleep(150); // what the frozen process already wrote to its sockets reaches the database
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            held[0] = count(pg, where);
            held[1] = count(maria, where);
            held[2]++;
            boolean patient = System.nanoTime() - since < Duration.ofSeconds(10).toNanos();
            if (held[0] > 0 && held[1] > 0 || !patient && held[0] + held[1] > 0) {
                return true;
            }
            server.thaw();
            return false;
        }, () -> held[2] + " tries");
        return held;
    }

    /** Distinct {@code locked_by} of the events being published right now, in both databases. */
    Set<String> leaseHolders() {
        Set<String> out = new LinkedHashSet<>();
        for (TestDatabase db : List.of(pg, maria)) {
            try (java.sql.Connection c = db.dataSource().getConnection();
                 PreparedStatement ps = c.prepareStatement("SELECT DISTINCT locked_by FROM " + PREFIX
                         + "outbox_event WHERE publish_status = " + OutboxStatus.PUBLISHING.code());
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
        return out;
    }

    /** Statuses of one outbox as {@code status=count}, for messages. */
    String statuses(TestDatabase db) {
        Map<String, Long> byStatus = new TreeMap<>();
        for (OutboxStatus s : OutboxStatus.values()) {
            long n = count(db, "publish_status = " + s.code());
            if (n > 0) {
                byStatus.put(s.name(), n);
            }
        }
        return byStatus.toString();
    }

    /** Waits until {@code condition} holds for the PUBLISHED count of both databases (writers still running). */
    void awaitPublished(String what, Duration timeout, LongPredicate condition) {
        Await.until(what, timeout, () -> condition.test(published(pg)) && condition.test(published(maria)),
                this::progress);
    }

    /** After the writers stopped: every written event PUBLISHED in its database and received from its broker. */
    void awaitAllDelivered(Duration timeout) {
        Await.until("every written event PUBLISHED in both databases", timeout,
                () -> published(pg) == pgWriter.written().size() && published(maria) == mariaWriter.written().size(),
                this::progress);
        Await.until("every PostgreSQL event received from RabbitMQ", timeout,
                () -> new LinkedHashSet<>(fromRabbit()).size() >= pgWriter.written().size(), this::progress);
    }

    String progress() {
        return "pg written " + pgWriter.written().size() + " " + statuses(pg) + ", received " + fromRabbit.size()
                + "; mariadb written " + mariaWriter.written().size() + " " + statuses(maria);
    }

    List<String> fromRabbit() {
        synchronized (fromRabbit) {
            return new ArrayList<>(fromRabbit);
        }
    }

    /** The stream's messages in stream order (JetStream drops a re-publish of an event within its duplicate window). */
    List<String> fromNats() throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection nats = Nats.connect(NATS_URL)) {
            JetStreamManagement jsm = nats.jetStreamManagement();
            var state = jsm.getStreamInfo(stream).getStreamState();
            for (long seq = state.getFirstSequence(); seq <= state.getLastSequence() && state.getMsgCount() > 0; seq++) {
                MessageInfo m = jsm.getMessage(stream, seq);
                out.add(m.getHeaders().getFirst(Envelope.EVENT_NO));
            }
        }
        return out;
    }

    @Override
    public void close() throws Exception {
        pgWriter.halt();
        mariaWriter.halt();
        try (Connection nats = Nats.connect(NATS_URL)) {
            nats.jetStreamManagement().deleteStream(stream);
        } finally {
            try {
                channel.queueDelete(exchange);
                channel.exchangeDelete(exchange);
                rabbit.close();
            } finally {
                pg.close();
                maria.close();
            }
        }
    }

    /**
     * Writes events to one database until stopped, two per transaction, each for a random aggregate and numbered in its
     * aggregate's order ({@code RUN-NAME-aN-SEQ}); {@link #written()} holds the events of committed transactions.
     */
    final class Writer {
        private final String name;
        private final TestDatabase db;
        private final String channel;
        private final String topic;
        private final List<String> written = Collections.synchronizedList(new ArrayList<>());
        private final int[] next = new int[AGGREGATES];
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final Thread thread;

        Writer(String name, TestDatabase db, String channel, String topic) {
            this.name = name;
            this.db = db;
            this.channel = channel;
            this.topic = topic;
            this.thread = new Thread(this::write, "writer-" + name);
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        List<String> written() {
            synchronized (written) {
                return new ArrayList<>(written);
            }
        }

        private void write() {
            Postbox postbox = Postbox.builder(db.dataSource()).tablePrefix(PREFIX).source("process-test").build();
            try (java.sql.Connection c = db.dataSource().getConnection()) {
                c.setAutoCommit(false);
                while (!stop.get()) {
                    List<String> tx = new ArrayList<>();
                    for (int k = 0; k < 2; k++) {
                        int a = ThreadLocalRandom.current().nextInt(AGGREGATES);
                        String no = run + "-" + name + "-a" + a + "-" + ++next[a];
                        postbox.outbox().write(c, OutboxEvent.builder().eventNo(no).aggregate("ORDER", name + "-a" + a)
                                .eventType("ORDER_CHANGED").channel(channel).topic(topic)
                                .payload("{\"seq\":" + next[a] + "}").build());
                        tx.add(no);
                    }
                    c.commit();
                    written.addAll(tx);
                    Thread.sleep(5); // a steady stream of about 300 events a second, not a flood on two cores
                }
            } catch (Throwable e) {
                failure.set(e);
            }
        }

        void finish() throws InterruptedException {
            stop.set(true);
            thread.join(30_000);
            assertThat(thread.isAlive()).as("writer " + name + " stopped").isFalse();
            assertThat(failure.get()).as("writer " + name + " wrote without failing").isNull();
        }

        void halt() throws InterruptedException {
            stop.set(true);
            thread.join(30_000);
        }
    }
}
