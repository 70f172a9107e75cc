package dev.postbox.spring.autoconfigure;

import dev.postbox.common.ValidationException;

import java.util.Locale;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Reports the core's (or a transport builder's) {@link ValidationException} for a builder setting (e.g.
 * {@code batchSize}) under the property a Spring user actually wrote (e.g. {@code postbox.relay.batch-size}).
 * For the starter's auto-configurations; not an application API.
 */
public final class PropertyErrors {

    private PropertyErrors() {
    }

    /** Builder fields under {@code prefix} in kebab case; {@code pollInterval.max} → {@code prefix + poll-interval-max}. */
    static <T> T named(String prefix, Supplier<T> build) {
        return renamed(field -> prefix + kebab(field).replace('.', '-'), build);
    }

    /**
     * Runs {@code build}; a {@link ValidationException} is thrown again with its field mapped by {@code property}
     * and the same problem. The original is not attached as the cause: the root cause a start-up failure shows
     * must name the property.
     */
    public static <T> T renamed(UnaryOperator<String> property, Supplier<T> build) {
        try {
            return build.get();
        } catch (ValidationException e) {
            String problem = e.getMessage().substring(e.field().length() + 2);
            ValidationException renamed = new ValidationException(property.apply(e.field()), problem);
            renamed.setStackTrace(e.getStackTrace());
            throw renamed;
        }
    }

    /** {@code deliveryTimeout} → {@code delivery-timeout}. */
    public static String kebab(String camel) {
        StringBuilder b = new StringBuilder(camel.length() + 4);
        for (char ch : camel.toCharArray()) {
            if (Character.isUpperCase(ch)) {
                b.append('-').append(Character.toLowerCase(ch));
            } else {
                b.append(ch);
            }
        }
        return b.toString().toLowerCase(Locale.ROOT);
    }
}
