package dev.postbox.spring.autoconfigure.listener;

import dev.postbox.spring.PostboxListener;
import dev.postbox.spring.PostboxListener.Transport;
import org.springframework.core.env.PropertyResolver;

import java.util.Arrays;
import java.util.List;

/** A {@link PostboxListener}'s attributes with their {@code ${...}} placeholders resolved against the environment. */
record ListenerSpec(String consumer, Transport transport, List<String> topics, List<String> eventTypes, int[] versions,
                    String queue, String bindingKey, String stream, String subject, String path) {

    static ListenerSpec of(PostboxListener a, PropertyResolver env, String method) {
        return new ListenerSpec(resolve(env, a.consumer(), method, "consumer"), a.transport(),
                resolve(env, a.topics(), method, "topics"), resolve(env, a.eventTypes(), method, "eventTypes"),
                a.versions(), resolve(env, a.queue(), method, "queue"), resolve(env, a.bindingKey(), method, "bindingKey"),
                resolve(env, a.stream(), method, "stream"), resolve(env, a.subject(), method, "subject"),
                resolve(env, a.path(), method, "path"));
    }

    private static List<String> resolve(PropertyResolver env, String[] values, String method, String attribute) {
        return Arrays.stream(values).map(v -> resolve(env, v, method, attribute)).toList();
    }

    private static String resolve(PropertyResolver env, String value, String method, String attribute) {
        try {
            return env.resolveRequiredPlaceholders(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("@PostboxListener " + method + ": " + attribute + " '" + value + "': "
                    + e.getMessage());
        }
    }
}
