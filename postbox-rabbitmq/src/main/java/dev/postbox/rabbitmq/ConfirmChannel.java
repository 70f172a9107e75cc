package dev.postbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Method;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import dev.postbox.spi.PublishResult;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * One publishing channel in confirm mode and the events it has in flight, by publish sequence number.
 * An ack completes its event (or all up to the tag when {@code multiple}); a nack makes it retryable; a
 * {@code basic.return} (sent before the ack) marks it unroutable, so its ack completes it DEAD; when the
 * channel closes, every event still open fails: DEAD for the exchange a 404 names, retryable otherwise.
 * {@link #publish} is called by one thread at a time (the publisher's lock); the callbacks come on the
 * connection's thread.
 */
final class ConfirmChannel implements ConfirmListener, ReturnListener, ShutdownListener {

    private static final class InFlight {
        final CompletableFuture<PublishResult> result = new CompletableFuture<>();
        final String exchange;
        final String eventNo;
        volatile String unroutable;

        InFlight(String exchange, String eventNo) {
            this.exchange = exchange;
            this.eventNo = eventNo;
        }
    }

    private final Channel channel;
    private final ConcurrentNavigableMap<Long, InFlight> inFlight = new ConcurrentSkipListMap<>();

    ConfirmChannel(Connection connection) throws IOException {
        Channel c = connection.createChannel();
        if (c == null) {
            throw new IOException("no free channel on connection " + connection);
        }
        this.channel = c;
        channel.addShutdownListener(this);
        channel.addConfirmListener(this);
        channel.addReturnListener(this);
        channel.confirmSelect();
    }

    boolean isOpen() {
        return channel.isOpen();
    }

    /** Publishes one persistent, mandatory message; the stage completes with its confirm. */
    CompletableFuture<PublishResult> publish(String exchange, String routingKey, AMQP.BasicProperties properties,
                                             byte[] body) {
        long seq = channel.getNextPublishSeqNo();
        InFlight f = new InFlight(exchange, properties.getMessageId());
        inFlight.put(seq, f);
        try {
            channel.basicPublish(exchange, routingKey, true, properties, body);
        } catch (IOException | ShutdownSignalException e) {
            inFlight.remove(seq, f);
            f.result.complete(failure(e, exchange));
            return f.result;
        }
        if (!channel.isOpen()) {
            // closed between put and publish: the shutdown listener may already have drained the map
            inFlight.remove(seq, f);
            f.result.complete(failure(channel.getCloseReason(), exchange));
        }
        f.result.whenComplete((r, e) -> inFlight.remove(seq, f)); // after a timeout, too
        return f.result;
    }

    @Override
    public void handleAck(long deliveryTag, boolean multiple) {
        confirmed(deliveryTag, multiple, true);
    }

    @Override
    public void handleNack(long deliveryTag, boolean multiple) {
        confirmed(deliveryTag, multiple, false);
    }

    private void confirmed(long tag, boolean multiple, boolean ack) {
        Map<Long, InFlight> done = multiple ? inFlight.headMap(tag, true) : subMap(tag);
        for (InFlight f : done.values()) {
            f.result.complete(!ack ? PublishResult.retry("nacked by the broker (basic.nack)")
                    : f.unroutable != null ? PublishResult.dead(f.unroutable) : PublishResult.published());
        }
        done.clear();
    }

    private Map<Long, InFlight> subMap(long tag) {
        return inFlight.subMap(tag, true, tag, true);
    }

    @Override
    public void handleReturn(int replyCode, String replyText, String exchange, String routingKey,
                             AMQP.BasicProperties properties, byte[] body) {
        // returns come in publish order and before their ack: the oldest open event of that number is the one
        for (InFlight f : inFlight.values()) {
            if (f.unroutable == null && f.eventNo != null && f.eventNo.equals(properties.getMessageId())) {
                f.unroutable = "unroutable: exchange '" + exchange + "' routing key '" + routingKey + "' (" + replyText + ")";
                return;
            }
        }
    }

    @Override
    public void shutdownCompleted(ShutdownSignalException cause) {
        for (Map.Entry<Long, InFlight> e : inFlight.entrySet()) {
            InFlight f = e.getValue();
            f.result.complete(f.unroutable != null ? PublishResult.dead(f.unroutable) : failure(cause, f.exchange));
            inFlight.remove(e.getKey(), f);
        }
    }

    /** DEAD if the channel was closed because {@code exchange} does not exist; retryable for anything else. */
    static PublishResult failure(Throwable error, String exchange) {
        ShutdownSignalException signal = null;
        for (Throwable t = error; t != null && signal == null; t = t.getCause()) {
            if (t instanceof ShutdownSignalException s) {
                signal = s;
            }
        }
        if (signal == null) {
            return PublishResult.retry("publish failed: " + error);
        }
        Method reason = signal.getReason();
        if (!signal.isHardError() && reason instanceof AMQP.Channel.Close close) {
            if (close.getReplyCode() == AMQP.NOT_FOUND && close.getReplyText().contains("exchange '" + exchange + "'")) {
                return PublishResult.dead("no such exchange '" + exchange + "' (" + close.getReplyText() + ")");
            }
            return PublishResult.retry("channel closed: " + close.getReplyCode() + " " + close.getReplyText());
        }
        if (reason instanceof AMQP.Connection.Close close) {
            return PublishResult.retry("connection closed: " + close.getReplyCode() + " " + close.getReplyText());
        }
        return PublishResult.retry("connection lost: " + (signal.getCause() != null ? signal.getCause() : signal.getMessage()));
    }

    void close() {
        try {
            if (channel.isOpen()) {
                channel.close();
            }
        } catch (IOException | java.util.concurrent.TimeoutException | ShutdownSignalException e) {
            // closing anyway: open events are failed by the shutdown listener
        }
    }
}
