package dev.postbox.nats;

import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.spi.Publisher;
import dev.postbox.testing.TcpProxy;
import dev.postbox.testing.TransportContract;

import java.time.Duration;

/** The transport conformance suite on the local NATS server with JetStream; outages through a TCP proxy. */
class NatsTransportTest extends TransportContract {

    @Override
    protected Broker startBroker() throws Exception {
        JetStreamFixture nats = new JetStreamFixture();
        TcpProxy proxy = new TcpProxy("127.0.0.1", 4222);
        NatsPublisher publisher = NatsPublisher.builder().servers("nats://127.0.0.1:" + proxy.port())
                .subjectPrefix(nats.prefix).ackTimeout(Duration.ofSeconds(2)).reconnectWait(Duration.ofMillis(250)).build();
        return new Broker() {
            @Override
            public String topic() {
                return "order.changed";
            }

            @Override
            public Publisher publisher() {
                return publisher;
            }

            @Override
            public AutoCloseable consume(EnvelopeConsumer consumer) throws Exception {
                return NatsSubscriber.builder(nats.connection, consumer).stream(nats.stream)
                        .durable("contract-" + Long.toString(System.nanoTime(), 36)).batchSize(500).build().start();
            }

            @Override
            public void outage(Duration length) throws Exception {
                proxy.cut(length);
            }

            @Override
            public boolean deduplicates() {
                return true;
            }

            @Override
            public void close() throws Exception {
                publisher.close();
                proxy.close();
                nats.close();
            }
        };
    }
}
