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
 *
 * <p>{@link #start()} gives a test class a cluster of its own (it closes it); {@link #shared()} gives every class of
 * the test JVM that asks the same one, started on first use and closed when the JVM exits (starting a broker costs
 * seconds of CPU). The classes sharing it keep apart by names: each creates its topics with a unique name
 * ({@link #createTopic}) and reads them with consumer groups of its own; nothing may stop its broker (a test that
 * takes the broker down starts its own cluster), and closing it is left to the JVM's exit.
 */
@SuppressWarnings("try") // close() may be interrupted like the kit it closes
public final class KafkaCluster implements AutoCloseable {

    private static KafkaCluster shared;
    private static RuntimeException sharedFailure;

    private final KafkaClusterTestKit kit;
    private final Admin admin;
    private final boolean isShared;

    private KafkaCluster(KafkaClusterTestKit kit, boolean isShared) {
        this.kit = kit;
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kit.bootstrapServers()));
        this.isShared = isShared;
    }

    /** A cluster of the caller's own, which it closes. */
    public static KafkaCluster start() {
        return new KafkaCluster(startKit(), false);
    }

    /**
     * The test JVM's shared cluster, started by the first caller and closed at the JVM's exit; its {@link #close()}
     * does nothing and {@link #stopBroker()} is refused. If it could not start, every caller gets that failure.
     */
    public static synchronized KafkaCluster shared() {
        if (sharedFailure != null) {
            throw new IllegalStateException("the shared in-process Kafka cluster did not start: " + sharedFailure.getMessage(),
                    sharedFailure);
        }
        if (shared == null) {
            try {
                shared = new KafkaCluster(startKit(), true);
            } catch (RuntimeException e) {
                sharedFailure = e;
                throw e;
            }
            KafkaCluster cluster = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    cluster.closeNow();
                } catch (Exception e) {
                    System.err.println("closing the shared in-process Kafka cluster: " + e);
                }
            }, "kafka-cluster-shared-close"));
        }
        return shared;
    }

    private static KafkaClusterTestKit startKit() {
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
            return kit;
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

    /** Shuts the broker down (the controller stays up); its listener port closes. Refused on the shared cluster. */
    public void stopBroker() {
        if (isShared) {
            throw new IllegalStateException("the shared Kafka cluster is never stopped: a test that takes the broker down"
                    + " starts a cluster of its own (KafkaCluster.start())");
        }
        broker().shutdown();
        broker().awaitShutdown();
    }

    /** Starts the same broker again: same port, same log directory. */
    public void startBroker() throws Exception {
        broker().startup();
        kit.waitForReadyBrokers();
    }

    /** Closes a cluster of the caller's own; does nothing on the shared one (closed at the JVM's exit). */
    @Override
    public void close() throws Exception {
        if (!isShared) {
            closeNow();
        }
    }

    private void closeNow() throws Exception {
        try {
            admin.close();
        } finally {
            kit.close();
        }
    }
}
