package dev.postbox.bench;

import dev.postbox.nats.NatsPublisher;
import dev.postbox.spi.Envelope;
import dev.postbox.spi.Publisher;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;

/**
 * Sink {@code nats}: the local NATS server with JetStream ({@code -Dpostbox.bench.nats.url}, default
 * {@code nats://127.0.0.1:4222}); a throw-away file-storage stream captures the events' subject;
 * {@link NatsPublisher} (asynchronous publish acks, {@code Nats-Msg-Id}) publishes and a core
 * subscription on the subject reads every message back for the {@link Receiver}. The stream is deleted
 * at close.
 */
final class NatsSink extends EchoSink {

    private static final String URL = System.getProperty("postbox.bench.nats.url", "nats://127.0.0.1:4222");

    private final NatsPublisher publisher;
    private final Connection connection;
    private final String stream;

    NatsSink(Receiver receiver) throws Exception {
        super(receiver);
        connection = Nats.connect(new Options.Builder().server(URL).connectionName("postbox-bench-consumer").build());
        stream = "POSTBOX_BENCH_" + Long.toString(System.nanoTime(), 36).toUpperCase();
        JetStreamManagement jsm = connection.jetStreamManagement();
        jsm.addStream(StreamConfiguration.builder().name(stream).subjects(EventWriter.TOPIC)
                .storageType(StorageType.File).build());
        Dispatcher dispatcher = connection.createDispatcher(message ->
                delivered(message.getHeaders() == null ? null : message.getHeaders().getFirst(Envelope.EVENT_NO)));
        dispatcher.subscribe(EventWriter.TOPIC);
        connection.flush(java.time.Duration.ofSeconds(5));
        publisher = NatsPublisher.builder().servers(URL).connectionName("postbox-bench-relay").build();
        Fmt.line("SINK nats " + URL + " stream=" + stream + " (file storage) subject=" + EventWriter.TOPIC
                + " publish acks, Nats-Msg-Id");
    }

    @Override
    Publisher publisher() {
        return publisher;
    }

    @Override
    public void close() throws Exception {
        publisher.close();
        try {
            connection.jetStreamManagement().deleteStream(stream);
        } finally {
            connection.close();
        }
    }
}
