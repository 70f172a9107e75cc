package dev.postbox.bench;

import dev.postbox.kafka.KafkaPublisher;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.Envelope;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Sink {@code kafka}: a real single-node KRaft broker in this JVM (Kafka's test kit, nothing runs on the
 * machine), the events' topic with {@value #PARTITIONS} partitions, {@link KafkaPublisher} as the relay's
 * publisher and one consumer thread that hands every record it reads back from the broker to the
 * {@link Receiver} (so order, duplicates and loss are checked end to end). Started before the timed part.
 */
final class KafkaSink implements Publisher, AutoCloseable {

    static final int PARTITIONS = 12;
    private static final String TOPIC = EventWriter.TOPIC;

    private final KafkaClusterTestKit cluster;
    private final KafkaPublisher publisher;
    private final KafkaConsumer<String, byte[]> consumer;
    private final Thread poller;
    /** The outbox id and aggregate of each event sent, by seq: what the receiver checks. */
    private final SentLog sent = new SentLog();
    private final Receiver receiver;
    private volatile boolean running = true;

    KafkaSink(Receiver receiver) throws Exception {
        this.receiver = receiver;
        cluster = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder().setCombined(true)
                .setNumControllerNodes(1).setNumBrokerNodes(1).build())
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("transaction.state.log.min.isr", "1")
                .setConfigProp("auto.create.topics.enable", "false")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .build();
        PrintStream out = System.out;
        System.setOut(System.err); // the kit prints its formatting on stdout, which carries only the bench's lines
        try {
            cluster.format();
        } finally {
            System.setOut(out);
        }
        cluster.startup();
        cluster.waitForReadyBrokers();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        publisher = KafkaPublisher.builder().bootstrapServers(cluster.bootstrapServers()).clientId("bench-relay").build();
        consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "bench", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000), new StringDeserializer(), new ByteArrayDeserializer());
        consumer.subscribe(List.of(TOPIC));
        poller = new Thread(this::poll, "bench-kafka-consumer");
        poller.setDaemon(true);
        poller.start();
        Fmt.line("SINK kafka in-process KRaft broker " + cluster.bootstrapServers() + " topic=" + TOPIC
                + " partitions=" + PARTITIONS + " acks=all idempotent");
    }

    @Override
    public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
        for (OutboxRecord r : records) {
            sent.record(r);
        }
        return publisher.publish(records);
    }

    /** The publisher's order lane (the topic), so that the relay hands it whole batches. */
    @Override
    public Object orderLane(OutboxRecord event) {
        return publisher.orderLane(event);
    }

    private void poll() {
        try {
            while (running) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    Header no = record.headers().lastHeader(Envelope.EVENT_NO);
                    if (no != null) {
                        sent.deliver(new String(no.value(), StandardCharsets.UTF_8), receiver);
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(2)));
        }
    }

    @Override
    public void close() throws Exception {
        running = false;
        consumer.wakeup();
        poller.join(5_000);
        publisher.close();
        cluster.close();
    }
}
