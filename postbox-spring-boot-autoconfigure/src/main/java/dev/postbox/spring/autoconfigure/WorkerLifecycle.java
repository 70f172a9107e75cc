package dev.postbox.spring.autoconfigure;

import dev.postbox.message.MessageWorker;
import dev.postbox.message.MessageWorkerBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import java.util.function.Supplier;

/**
 * Builds the message-event worker from the handlers found in the context ({@link MessageHandlers}) when the
 * context starts, and closes it before the context's beans go. With no handler, no worker runs.
 */
public final class WorkerLifecycle implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(WorkerLifecycle.class);

    private final Supplier<MessageWorkerBuilder> builder;
    private final MessageHandlers handlers;
    private volatile MessageWorker worker;
    private volatile boolean running;

    WorkerLifecycle(Supplier<MessageWorkerBuilder> builder, MessageHandlers handlers) {
        this.builder = builder;
        this.handlers = handlers;
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        if (handlers.isEmpty()) {
            log.debug("No Postbox message handlers; the message-event worker does not run");
        } else {
            MessageWorkerBuilder b = builder.get();
            handlers.registerWith(b);
            worker = PropertyErrors.named("postbox.worker.", b::build).start();
            log.info("Postbox message-event worker {} started for event types {}", worker.instanceId(), handlers.eventTypes());
        }
        running = true;
    }

    @Override
    public synchronized void stop() {
        MessageWorker w = worker;
        worker = null;
        running = false;
        if (w != null) {
            w.close();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return RelayLifecycle.PHASE;
    }

    /** The running worker, or null (not started, stopped, or no handlers). */
    public MessageWorker worker() {
        return worker;
    }
}
