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
 * Turns {@link PostboxTest#publishTo()} into the property {@value #PUBLISH_TO} of the test's context (registered in
 * {@code META-INF/spring.factories}; a test class without {@link PostboxTest} is left alone). Contexts of tests with
 * different settings are cached apart.
 */
public final class PostboxTestContextCustomizerFactory implements ContextCustomizerFactory {

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
        }
    }
}
