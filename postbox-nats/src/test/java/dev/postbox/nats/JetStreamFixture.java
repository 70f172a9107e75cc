package dev.postbox.nats;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;

import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A throw-away JetStream stream on the real server: unique name {@code PBT_<id>} capturing
 * {@code pbt<id>.>}, a 2-minute duplicate window, deleted by {@link #close()}. Connecting fails loudly
 * when the server is down; nothing skips.
 */
final class JetStreamFixture implements AutoCloseable {

    static final String URL = System.getProperty("postbox.test.nats.url", "nats://127.0.0.1:4222");

    final String id = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36).toLowerCase(Locale.ROOT);
    final String stream = "PBT_" + id;
    /** The subject prefix the stream captures, e.g. {@code pbtx1y2.}. */
    final String prefix = "pbt" + id + ".";
    final Connection connection;
    final JetStreamManagement jsm;

    JetStreamFixture() throws IOException, InterruptedException, JetStreamApiException {
        connection = Nats.connect(Options.builder().server(URL).connectionName("postbox-test").maxReconnects(-1).build());
        jsm = connection.jetStreamManagement();
        jsm.addStream(StreamConfiguration.builder().name(stream).subjects(prefix + ">")
                .storageType(StorageType.Memory).duplicateWindow(Duration.ofMinutes(2)).build());
    }

    long messages() throws IOException, JetStreamApiException {
        return jsm.getStreamInfo(stream).getStreamState().getMsgCount();
    }

    @Override
    public void close() throws IOException, JetStreamApiException {
        try {
            jsm.deleteStream(stream);
        } finally {
            try {
                connection.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
