package dev.postbox.test.spring;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

import java.util.List;
import java.util.Map;

/**
 * Turns {@link PostboxTest#publishTo()} into the property {@value #PUBLISH_TO} of the test's context, and makes
 * {@value #CLOCK_SKEW_CHECK} false by default there (registered in {@code META-INF/spring.factories}; a test class
 * without {@link PostboxTest} is left alone). Contexts of tests with different settings are cached apart.
 */
public final class PostboxTestContextCustomizerFactory implements ContextCustomizerFactory {

    /** The starter's property that {@link PostboxTest} sets to false unless the test sets it. */
    public static final String CLOCK_SKEW_CHECK = "postbox.relay.clock-skew-check";

    /** The property {@link PostboxTestAutoConfiguration} reads: {@code event-bus} (default) or {@code transports}. */
    public static final String PUBLISH_TO = "postbox.test.publish-to";

    @Override
    public ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        var found = MergedAnnotations.from(testClass, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY).get(PostboxTest.class);
        if (!found.isPresent()) {
            return null;
        }
        return new PublishToCustomizer(found.getEnum("publishTo", PostboxTest.PublishTo.class));
    }

    private record PublishToCustomizer(PostboxTest.PublishTo publishTo) implements ContextCustomizer {
        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
            context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("postboxTest",
                    Map.of(PUBLISH_TO, publishTo.property())));
            // a default the test may override: the test clock is moved away from the database's on purpose, and the
            // starter's relay should still take over the leases that expire by it
            context.getEnvironment().getPropertySources().addLast(new MapPropertySource("postboxTestDefaults",
                    Map.of(CLOCK_SKEW_CHECK, "false")));
        }
    }
}
