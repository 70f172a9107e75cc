package dev.postbox.bench;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DeliverCallback;
import dev.postbox.rabbitmq.RabbitPublisher;
import dev.postbox.spi.Publisher;

/**
 * Sink {@code rabbitmq}: the local RabbitMQ ({@code -Dpostbox.bench.rabbitmq.uri}, default
 * {@code amqp://guest:guest@127.0.0.1:5672}); the events' topic is a fanout exchange bound to a
 * throw-away queue; {@link RabbitPublisher} (persistent, mandatory, publisher confirms) publishes and one
 * consumer reads every message back for the {@link Receiver}. Exchange and queue are deleted at close.
 */
final class RabbitSink extends EchoSink {

    private static final String URI = System.getProperty("postbox.bench.rabbitmq.uri", "amqp://guest:guest@127.0.0.1:5672");

    private final RabbitPublisher publisher;
    private final Connection connection;
    private final Channel channel;
    private final String queue;

    RabbitSink(Receiver receiver) throws Exception {
        super(receiver);
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(URI);
        factory.setConnectionTimeout(5_000);
        connection = factory.newConnection("postbox-bench-consumer");
        channel = connection.createChannel();
        channel.exchangeDeclare(EventWriter.TOPIC, "fanout", false);
        queue = "postbox-bench-" + Long.toString(System.nanoTime(), 36);
        channel.queueDeclare(queue, false, true, true, null);
        channel.queueBind(queue, EventWriter.TOPIC, "");
        channel.basicQos(1000);
        DeliverCallback deliver = (tag, message) -> delivered(message.getProperties().getMessageId());
        channel.basicConsume(queue, true, deliver, tag -> { });
        publisher = RabbitPublisher.builder(factory).connectionName("postbox-bench-relay").build();
        Fmt.line("SINK rabbitmq " + factory.getHost() + ":" + factory.getPort() + " exchange=" + EventWriter.TOPIC
                + " (fanout) queue=" + queue + " persistent mandatory confirms");
    }

    @Override
    Publisher publisher() {
        return publisher;
    }

    @Override
    public void close() throws Exception {
        publisher.close();
        try {
            channel.queueDelete(queue);
            channel.exchangeDelete(EventWriter.TOPIC);
        } finally {
            connection.close();
        }
    }
}
