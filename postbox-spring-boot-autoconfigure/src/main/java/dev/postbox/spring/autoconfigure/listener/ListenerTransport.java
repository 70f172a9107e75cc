package dev.postbox.spring.autoconfigure.listener;

import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.spring.PostboxListener.Transport;

/**
 * How one transport feeds {@link dev.postbox.spring.PostboxListener} methods: checks a group's settings at
 * start-up and starts its subscription. One bean per transport whose module is on the class path; a listener on
 * a transport without one fails the start-up naming what is missing.
 */
interface ListenerTransport {

    Transport transport();

    /** Refuses settings this transport cannot serve (a missing topic, queue, stream, server), naming the attribute or property. */
    void check(ListenerGroup group);

    /** Starts delivering the group's events to {@code consumer}; closing the result stops it (the delivery in hand finishes). */
    AutoCloseable start(ListenerGroup group, EnvelopeConsumer consumer) throws Exception;

    /** Whether the subscription {@code started} returned still receives (a consumer loop whose thread died does not). */
    default boolean alive(AutoCloseable started) {
        return true;
    }
}
