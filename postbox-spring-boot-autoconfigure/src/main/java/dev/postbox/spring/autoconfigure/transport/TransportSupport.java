package dev.postbox.spring.autoconfigure.transport;

import dev.postbox.common.ValidationException;
import dev.postbox.spring.autoconfigure.PropertyErrors;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/** What the four transport auto-configurations share: channel checks, property names in errors, the connection condition. */
final class TransportSupport {

    private TransportSupport() {
    }

    /** The channels of {@code property}, refused when none or a blank one is named. */
    static List<String> channels(String property, List<String> channels) {
        if (channels == null || channels.isEmpty()) {
            throw new ValidationException(property, "must name at least one channel");
        }
        for (int i = 0; i < channels.size(); i++) {
            if (channels.get(i) == null || channels.get(i).isBlank()) {
                throw new ValidationException(property + "[" + i + "]", "must not be blank");
            }
        }
        return List.copyOf(channels);
    }

    /**
     * Runs a transport builder and reports a {@link ValidationException} under the Spring property that
     * holds the setting: the builder's field (e.g. {@code kafka.deliveryTimeout}) without
     * {@code builderPrefix}, renamed by {@code aliases} on its first segment, in kebab case, after
     * {@code propertyPrefix} (e.g. {@code postbox.kafka.delivery-timeout}).
     */
    static <T> T build(String propertyPrefix, String builderPrefix, Map<String, String> aliases, Supplier<T> builder) {
        return PropertyErrors.renamed(builderField -> {
            String field = builderField.startsWith(builderPrefix) ? builderField.substring(builderPrefix.length()) : builderField;
            int end = endOfFirstSegment(field);
            String head = field.substring(0, end);
            return propertyPrefix + "." + aliases.getOrDefault(head, PropertyErrors.kebab(head)) + field.substring(end);
        }, builder);
    }

    private static int endOfFirstSegment(String field) {
        for (int i = 0; i < field.length(); i++) {
            if (field.charAt(i) == '.' || field.charAt(i) == '[') {
                return i;
            }
        }
        return field.length();
    }

    /** The non-blank values of a list property (comma-separated or indexed), empty when unset. */
    static List<String> list(Environment env, String property) {
        return Binder.get(env).bind(property, Bindable.listOf(String.class)).orElse(List.of()).stream()
                .filter(s -> s != null && !s.isBlank()).map(String::trim).toList();
    }

    /** A non-blank string property, if set. */
    static Optional<String> string(Environment env, String property) {
        return Optional.ofNullable(Binder.get(env).bind(property, Bindable.of(String.class)).orElse(null))
                .map(String::trim).filter(s -> !s.isEmpty());
    }

    /**
     * Matches when at least one of {@link #properties()} is set to a non-blank value (a list in either
     * form), so that having a transport's jar alone never makes the application connect to a broker that
     * is not there.
     */
    abstract static class ConnectionConfigured extends SpringBootCondition {

        abstract List<String> properties();

        boolean isSet(Binder binder, String property) {
            return binder.bind(property, Bindable.listOf(String.class)).orElse(List.of()).stream()
                    .anyMatch(s -> s != null && !s.isBlank());
        }

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Binder binder = Binder.get(context.getEnvironment());
            for (String property : properties()) {
                if (isSet(binder, property)) {
                    return ConditionOutcome.match(property + " is set");
                }
            }
            return ConditionOutcome.noMatch("none of " + String.join(", ", properties()) + " is set");
        }
    }
}
