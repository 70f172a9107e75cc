package dev.postbox.kafka;

import dev.postbox.kafka.testing.KafkaCluster;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.spi.Publisher;
import dev.postbox.testing.TransportContract;

import java.time.Duration;

/**
 * The transport conformance suite on an in-process single-node KRaft cluster (Kafka's own test kit);
 * the outage shuts the broker down and starts it again on the same port and log directory.
 */
class KafkaTransportTest extends TransportContract {

    @Override
    protected Broker startBroker() throws Exception {
        KafkaCluster kafka = KafkaCluster.start();
        String topic = kafka.createTopic("contract", 6);
        KafkaPublisher publisher = KafkaPublisher.builder().bootstrapServers(kafka.bootstrapServers())
                .deliveryTimeout(Duration.ofSeconds(3)).requestTimeout(Duration.ofSeconds(2)).build();
        return new Broker() {
            @Override
            public String topic() {
                return topic;
            }

            @Override
            public Publisher publisher() {
                return publisher;
            }

            @Override
            public AutoCloseable consume(EnvelopeConsumer consumer) {
                return KafkaEnvelopeConsumer.builder(consumer).bootstrapServers(kafka.bootstrapServers())
                        .groupId("contract-" + Long.toString(System.nanoTime(), 36)).topics(topic)
                        .retryBackoff(Duration.ofMillis(200)).start();
            }

            @Override
            public void outage(Duration length) {
                kafka.stopBroker();
                Thread back = new Thread(() -> {
                    try {
                        Thread.sleep(length.toMillis());
                        kafka.startBroker();
                    } catch (Exception e) {
                        throw new IllegalStateException("the Kafka broker did not come back", e);
                    }
                }, "kafka-broker-back");
                back.setDaemon(true);
                back.start();
            }

            @Override
            public boolean deduplicates() {
                return false; // idempotence drops the producer's own retries, not a second send: the inbox absorbs it
            }

            @Override
            public void close() throws Exception {
                publisher.close();
                kafka.close();
            }
        };
    }
}
