package dev.postbox.spring;

import dev.postbox.spi.Envelope;

/**
 * Told of every delivery to a {@link PostboxListener} method once its transaction has ended: the starter calls each
 * bean of this type on the delivering thread, before the delivery is acknowledged. Meant for meters, logs and tests
 * that wait for a consumer (the test kit's {@code PostboxAwait.awaitConsumed}); what an observer throws is logged and
 * otherwise ignored.
 */
@FunctionalInterface
public interface PostboxListenerObserver {

    /** What one delivery came to. */
    enum Outcome {
        /** The method ran and its transaction, with the consume-log row, committed. */
        RAN,
        /** The consumer had consumed this event_no before: nothing ran. */
        DUPLICATE,
        /** The method or the transaction failed: nothing was committed and the transport delivers the event again. */
        FAILED
    }

    /**
     * One delivery.
     *
     * @param consumer  the listener's consumer (consume-log name)
     * @param transport the transport it came by
     * @param envelope  the event as delivered
     * @param outcome   what it came to
     * @param failure   why it failed; null unless {@code outcome} is FAILED
     */
    record Delivery(String consumer, PostboxListener.Transport transport, Envelope envelope, Outcome outcome,
                    Throwable failure) {
    }

    void delivered(Delivery delivery);
}
