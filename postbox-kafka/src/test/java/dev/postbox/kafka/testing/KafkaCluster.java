package dev.postbox.kafka.testing;

import kafka.server.BrokerServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A real single-node KRaft cluster in the test JVM (Kafka's own test kit): one controller and one broker,
 * topics never auto-created. {@link #stopBroker()} / {@link #startBroker()} take the broker down and bring
 * it back on the same port with the same log directory. Shipped in postbox-kafka's test-jar for the other
 * modules' tests (the starter's, the order-service example's).
 */
@SuppressWarnings("try") // close() may be interrupted like the kit it closes
public final class KafkaCluster implements AutoCloseable {

    private final KafkaClusterTestKit kit;
    private final Admin admin;

    private KafkaCluster(KafkaClusterTestKit kit) {
        this.kit = kit;
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kit.bootstrapServers()));
    }

    public static KafkaCluster start() {
        try {
            KafkaClusterTestKit kit = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                    .setCombined(false).setNumControllerNodes(1).setNumBrokerNodes(1).build())
                    .setConfigProp("offsets.topic.replication.factor", "1")
                    .setConfigProp("offsets.topic.num.partitions", "2")
                    .setConfigProp("transaction.state.log.replication.factor", "1")
                    .setConfigProp("transaction.state.log.min.isr", "1")
                    .setConfigProp("auto.create.topics.enable", "false")
                    .setConfigProp("group.initial.rebalance.delay.ms", "0")
                    .build();
            kit.format();
            kit.startup();
            kit.waitForReadyBrokers();
            return new KafkaCluster(kit);
        } catch (Exception e) {
            throw new IllegalStateException("could not start the in-process Kafka cluster: " + e, e);
        }
    }

    public String bootstrapServers() {
        return kit.bootstrapServers();
    }

    /** A new topic with a unique name starting with {@code prefix}. */
    public String createTopic(String prefix, int partitions) throws Exception {
        String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        createTopicNamed(name, partitions);
        return name;
    }

    /** A new topic with exactly this name. */
    public void createTopicNamed(String name, int partitions) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }

    public void deleteTopic(String name) throws Exception {
        admin.deleteTopics(List.of(name)).all().get(30, TimeUnit.SECONDS);
    }

    public Admin admin() {
        return admin;
    }

    private BrokerServer broker() {
        return kit.brokers().values().iterator().next();
    }

    /** Shuts the broker down (the controller stays up); its listener port closes. */
    public void stopBroker() {
        broker().shutdown();
        broker().awaitShutdown();
    }

    /** Starts the same broker again: same port, same log directory. */
    public void startBroker() throws Exception {
        broker().startup();
        kit.waitForReadyBrokers();
    }

    @Override
    public void close() throws Exception {
        try {
            admin.close();
        } finally {
            kit.close();
        }
    }
}
