package dev.postbox.spring;

import dev.postbox.spi.Publisher;

import java.util.List;
import java.util.Objects;

/**
 * Tells the starter's relay to hand events of {@code channels} to {@code publisher}. The starter declares one
 * for the in-process event bus and one for each transport on the class path that is configured; declare
 * more as beans. Events whose channel no route names go DEAD with that reason. An application that declares
 * its own {@code Publisher} bean named {@code postboxPublisher} replaces the routing altogether.
 *
 * @param name      a name for logs and errors (e.g. {@code kafka})
 * @param channels  the event channels (OutboxEvent.channel) routed here, at least one
 * @param publisher the publisher
 */
public record PublisherRoute(String name, List<String> channels, Publisher publisher) {

    public PublisherRoute {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(publisher, "publisher");
        channels = List.copyOf(channels);
        if (channels.isEmpty()) {
            throw new IllegalArgumentException("PublisherRoute '" + name + "': channels must name at least one channel");
        }
    }
}
