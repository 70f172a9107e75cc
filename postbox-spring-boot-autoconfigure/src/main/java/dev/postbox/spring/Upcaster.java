package dev.postbox.spring;

import dev.postbox.spi.Envelope;

/**
 * Turns the payload of an event of {@link #eventType()} at version {@link #from()} into its payload at version
 * {@link #to()}, for {@link PostboxListener} methods that accept only newer versions. Register one as a bean, or
 * annotate a bean method with {@link PostboxUpcaster}. Upcasters chain: 1 to 2, then 2 to 3. Thread-safe.
 */
public interface Upcaster {

    /** The event type this upcaster reads. */
    String eventType();

    /** The version it reads. */
    int from();

    /** The version it produces; greater than {@link #from()}. */
    int to();

    /** The payload at version {@link #to()}; {@code envelope} is the event at version {@link #from()}. */
    String upcast(String payload, Envelope envelope) throws Exception;
}
