package dev.postbox.spring.autoconfigure;

import dev.postbox.ValidationException;

import java.util.function.Supplier;

/**
 * Reports the core's {@link ValidationException} for a builder setting (e.g. {@code batchSize}) under the
 * property a Spring user actually wrote (e.g. {@code postbox.relay.batch-size}).
 */
final class PropertyErrors {

    private PropertyErrors() {
    }

    static <T> T named(String prefix, Supplier<T> build) {
        try {
            return build.get();
        } catch (ValidationException e) {
            String problem = e.getMessage().substring(e.field().length() + 2);
            ValidationException renamed = new ValidationException(prefix + kebab(e.field()), problem);
            renamed.setStackTrace(e.getStackTrace());
            throw renamed;
        }
    }

    /** {@code pollInterval.max} → {@code poll-interval-max}. */
    static String kebab(String field) {
        StringBuilder b = new StringBuilder();
        for (char ch : field.toCharArray()) {
            if (Character.isUpperCase(ch)) {
                b.append('-').append(Character.toLowerCase(ch));
            } else if (ch == '.') {
                b.append('-');
            } else {
                b.append(ch);
            }
        }
        return b.toString();
    }
}
