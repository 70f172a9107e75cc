package dev.postbox.spring.autoconfigure;

import dev.postbox.common.ValidationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import java.util.Locale;

/**
 * Reports a start-up stopped by a rejected Postbox setting (a {@link ValidationException} from the core's builders,
 * renamed to the {@code postbox.*} property by {@link PropertyErrors}, or from the starter's own checks) as Boot's
 * "APPLICATION FAILED TO START": the property and the rule it broke, then where to change it, with the environment
 * variable that sets it too. Registered in {@code META-INF/spring.factories}; the same class on Boot 3.5 and 4.0.
 */
class PostboxPropertyFailureAnalyzer extends AbstractFailureAnalyzer<ValidationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ValidationException cause) {
        String field = cause.field();
        String problem = cause.getMessage().substring(field.length() + 2);
        if (!field.startsWith("postbox.")) {
            return new FailureAnalysis("Postbox rejected its setting '" + field + "': " + problem + ".",
                    "Correct '" + field + "' where the application sets it (a postbox.* property, a bean or a builder"
                            + " call) and start again.", cause);
        }
        return new FailureAnalysis("Invalid Postbox property " + field + ": " + problem + ".",
                "Change " + field + " in the application's configuration (application.properties or application.yml;"
                        + " the environment variable " + environmentVariable(field) + " sets it too) and start again.",
                cause);
    }

    /** Spring Boot's relaxed binding: {@code postbox.relay.batch-size} → {@code POSTBOX_RELAY_BATCHSIZE}. */
    static String environmentVariable(String property) {
        return property.replace("-", "").replace("[", "_").replace("]", "").replace('.', '_')
                .toUpperCase(Locale.ROOT);
    }
}
