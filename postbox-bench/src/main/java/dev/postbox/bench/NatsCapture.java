package dev.postbox.bench;

import dev.postbox.spi.Envelope;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The destination side of {@code scripts/bench server}: the local NATS JetStream ({@code -Dpostbox.bench.nats.url},
 * default {@code nats://127.0.0.1:4222}) under a subject prefix of the run's own ({@link #subjectPrefix()}), so that
 * nothing else's streams or subscribers are touched. Each drain gets a fresh file-storage stream capturing the
 * subject (so JetStream's duplicate window of the previous drain, which would ack the same event_no without storing
 * it, never makes a later drain cheaper) and, per source, a core subscription on a connection of its own that hands
 * the deliveries of that source (by the seq range of its event_no) to its {@link Receiver} and drops the others, so
 * that one source's flood never queues another's arrivals behind it in this JVM. Per-aggregate order is checked with the seq as the id: each source
 * was filled in seq order from one connection, so within an aggregate seq order is id order.
 */
final class NatsCapture implements AutoCloseable {

    static final String URL = System.getProperty("postbox.bench.nats.url", "nats://127.0.0.1:4222");

    private final String run = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    private final Connection connection;
    private volatile String stream;
    private volatile Dispatcher dispatcher;
    /** One more connection and subscription per source after the first (see the class comment). */
    private final List<Connection> extraConnections = new java.util.ArrayList<>();
    private final List<Dispatcher> extraDispatchers = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Deletes the current stream when the JVM is stopped (Ctrl-C, kill) before {@link #close()} ran. */
    private final Thread deleteOnExit = new Thread(this::end, "bench-nats-delete-on-exit");

    NatsCapture() throws Exception {
        connection = Nats.connect(new Options.Builder().server(URL).connectionName("postbox-bench-consumer").build());
        Runtime.getRuntime().addShutdownHook(deleteOnExit);
    }

    /** Put before the events' topic by every publisher of the run (the server's {@code subject-prefix}). */
    String subjectPrefix() {
        return "postbox_bench_" + run + ".";
    }

    String subject() {
        return subjectPrefix() + EventWriter.TOPIC;
    }

    /**
     * Starts capturing one drain: a new stream, and a subscription handing seq {@code s} to
     * {@code receivers[s / seqsPerSource]}.
     */
    synchronized void begin(List<Receiver> receivers, long seqsPerSource) throws Exception {
        end();
        stream = "POSTBOX_BENCH_" + run.toUpperCase(Locale.ROOT) + "_" + Long.toString(System.nanoTime(), 36).toUpperCase(Locale.ROOT);
        connection.jetStreamManagement().addStream(StreamConfiguration.builder().name(stream).subjects(subject())
                .storageType(StorageType.File).build());
        dispatcher = connection.createDispatcher(message -> deliver(message, receivers, seqsPerSource, 0));
        dispatcher.setPendingLimits(0, 0); // unlimited: a slow moment of the bench must not drop deliveries
        dispatcher.subscribe(subject());
        connection.flush(Duration.ofSeconds(5));
        for (int i = 1; i < receivers.size(); i++) {
            while (extraConnections.size() < i) {
                extraConnections.add(Nats.connect(new Options.Builder().server(URL)
                        .connectionName("postbox-bench-consumer-" + (extraConnections.size() + 1)).build()));
            }
            Connection c = extraConnections.get(i - 1);
            int source = i;
            Dispatcher d = c.createDispatcher(message -> deliver(message, receivers, seqsPerSource, source));
            d.setPendingLimits(0, 0);
            d.subscribe(subject());
            c.flush(Duration.ofSeconds(5));
            extraDispatchers.add(d);
        }
    }

    private static void deliver(Message message, List<Receiver> receivers, long seqsPerSource, int only) {
        if (message.getHeaders() == null) {
            return;
        }
        long seq = EventWriter.seq(message.getHeaders().getFirst(Envelope.EVENT_NO));
        if (seq / seqsPerSource != only) {
            return; // another source's: its own subscription takes it
        }
        String aggregate = message.getHeaders().getFirst(Envelope.AGGREGATE_TYPE) + "/"
                + message.getHeaders().getFirst(Envelope.AGGREGATE_ID);
        int source = (int) (seq / seqsPerSource);
        if (source < receivers.size()) {
            receivers.get(source).accept(seq, seq, aggregate);
        }
    }

    /**
     * Deliveries of the first source's subscription received but not yet handed to its receiver (its queue in this
     * JVM; the other sources have subscriptions of their own), 0 between drains:
     * what a timing taken at the receiver owes to the bench's own consumer falling behind.
     */
    long pendingDeliveries() {
        Dispatcher d = dispatcher;
        try {
            return d == null ? 0 : Math.max(0, d.getPendingMessageCount());
        } catch (IllegalStateException closed) {
            return 0;
        }
    }

    /** Messages the current drain's stream holds (JetStream keeps one of each event_no within its window). */
    long streamMessages() throws Exception {
        return connection.jetStreamManagement().getStreamInfo(stream).getStreamState().getMsgCount();
    }

    /** Stops the current drain's subscription and deletes its stream; never throws. */
    synchronized void end() {
        try {
            if (dispatcher != null) {
                connection.closeDispatcher(dispatcher);
            }
            for (int i = 0; i < extraDispatchers.size(); i++) {
                extraConnections.get(i).closeDispatcher(extraDispatchers.get(i));
            }
            extraDispatchers.clear();
            if (stream != null) {
                JetStreamManagement jsm = connection.jetStreamManagement();
                jsm.deleteStream(stream);
            }
        } catch (Exception e) {
            System.err.println("WARN could not delete stream " + stream + ": " + e);
        } finally {
            dispatcher = null;
            stream = null;
        }
    }

    @Override
    public void close() throws InterruptedException {
        Runtime.getRuntime().removeShutdownHook(deleteOnExit);
        end();
        for (Connection c : extraConnections) {
            c.close();
        }
        connection.close();
    }
}
