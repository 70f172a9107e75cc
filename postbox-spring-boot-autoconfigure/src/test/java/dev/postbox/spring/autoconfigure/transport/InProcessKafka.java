package dev.postbox.spring.autoconfigure.transport;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A real single-node KRaft broker (Kafka's own test kit) in the test JVM; topics are never auto-created. */
@SuppressWarnings("try")
final class InProcessKafka implements AutoCloseable {

    private final KafkaClusterTestKit kit;
    private final Admin admin;

    private InProcessKafka(KafkaClusterTestKit kit) {
        this.kit = kit;
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kit.bootstrapServers()));
    }

    static InProcessKafka start() throws Exception {
        KafkaClusterTestKit kit = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                .setCombined(true).setNumControllerNodes(1).setNumBrokerNodes(1).build())
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("offsets.topic.num.partitions", "1")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("transaction.state.log.min.isr", "1")
                .setConfigProp("auto.create.topics.enable", "false")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .build();
        kit.format();
        kit.startup();
        kit.waitForReadyBrokers();
        return new InProcessKafka(kit);
    }

    String bootstrapServers() {
        return kit.bootstrapServers();
    }

    String createTopic(String prefix) throws Exception {
        String name = TransportTestSupport.unique(prefix);
        admin.createTopics(List.of(new NewTopic(name, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        return name;
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
