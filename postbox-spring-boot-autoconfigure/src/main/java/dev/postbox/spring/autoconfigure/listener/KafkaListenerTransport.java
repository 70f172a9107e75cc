package dev.postbox.spring.autoconfigure.listener;

import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.kafka.KafkaEnvelopeConsumer;
import dev.postbox.spring.PostboxListener.Transport;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

import java.util.List;

/**
 * Kafka: one {@link KafkaEnvelopeConsumer} per group, the consumer group named after the consumer, on the
 * cluster of {@code postbox.kafka.bootstrap-servers} (else {@code spring.kafka.bootstrap-servers}); a record's
 * offset is committed after its transaction, a failure rewinds its partition.
 */
final class KafkaListenerTransport implements ListenerTransport {

    private final Environment env;

    KafkaListenerTransport(Environment env) {
        this.env = env;
    }

    @Override
    public Transport transport() {
        return Transport.KAFKA;
    }

    private String servers() {
        for (String property : List.of("postbox.kafka.bootstrap-servers", "spring.kafka.bootstrap-servers")) {
            List<String> servers = Binder.get(env).bind(property, Bindable.listOf(String.class)).orElse(List.of())
                    .stream().filter(s -> s != null && !s.isBlank()).map(String::trim).toList();
            if (!servers.isEmpty()) {
                return String.join(",", servers);
            }
        }
        return null;
    }

    @Override
    public void check(ListenerGroup group) {
        if (group.topics().isEmpty()) {
            throw new IllegalStateException("@PostboxListener " + group.describe() + " names no topics: set topics to the"
                    + " Kafka topic(s) to read, e.g. topics = \"order.event\"");
        }
        if (servers() == null) {
            throw new IllegalStateException("@PostboxListener " + group.describe() + " needs a Kafka cluster: set"
                    + " postbox.kafka.bootstrap-servers (or spring.kafka.bootstrap-servers)");
        }
    }

    @Override
    public AutoCloseable start(ListenerGroup group, EnvelopeConsumer consumer) {
        return KafkaEnvelopeConsumer.builder(consumer).bootstrapServers(servers()).groupId(group.consumer())
                .topics(group.topics().toArray(String[]::new)).start();
    }

    @Override
    public boolean alive(AutoCloseable started) {
        return ((KafkaEnvelopeConsumer) started).isRunning();
    }
}
