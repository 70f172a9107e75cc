package dev.postbox.test.spring;

import dev.postbox.Postbox;
import dev.postbox.spring.PublisherRoute;
import dev.postbox.spring.autoconfigure.PostboxAutoConfiguration;
import dev.postbox.spring.autoconfigure.PostboxProperties;
import dev.postbox.spring.autoconfigure.RelayLifecycle;
import dev.postbox.spring.autoconfigure.WorkerLifecycle;
import dev.postbox.test.RecordingPublisher;
import dev.postbox.test.TestClock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.core.env.Environment;

import javax.sql.DataSource;

/**
 * What {@link PostboxTest} adds to the test's context, before the starter's auto-configuration so that the starter
 * uses it; each bean only where the application does not define one:
 * <ul>
 *   <li>a {@link TestClock} standing at the system's time when the context starts (set once more just before the
 *       relay starts), {@code @Primary} so that the application's own {@code Clock} injection points get it too;</li>
 *   <li>named {@code postboxClock} too, so the starter's {@link Postbox} takes its times from it (schema check and
 *       all, as in production; an application's own {@code Postbox} bean keeps its own clock, and an application's own
 *       {@code TestClock} bean should be named {@code postboxClock});</li>
 *   <li>a {@link RecordingPublisher} as the relay's publisher ({@code postboxPublisher}), which acknowledges every event
 *       itself except those on the in-process event bus's channels, which it forwards to the {@code EventBus} so that
 *       the application's subscribers still receive them (with {@code postbox.test.publish-to=transports}, set by
 *       {@link PostboxTest#publishTo()}, it forwards every event to its channel's route);</li>
 *   <li>a {@link PostboxAwait} for {@code awaitQuiescence()}.</li>
 * </ul>
 * Not registered for auto-configuration: only {@link PostboxTest} imports it.
 */
@AutoConfiguration(before = PostboxAutoConfiguration.class, afterName = {
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"})
@ConditionalOnProperty(prefix = "postbox", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(PostboxProperties.class)
public class PostboxTestAutoConfiguration {

    /** The test clock, unless the application defines one. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(TestClock.class)
    static class ClockConfiguration {

        /** The test clock, at the system's time; also named {@code postboxClock}, the clock the starter's Postbox takes. */
        @Bean({"postboxTestClock", PostboxAutoConfiguration.CLOCK_BEAN})
        @Primary
        TestClock postboxTestClock() {
            return TestClock.systemNow();
        }

        /**
         * Sets the clock to the system's time once more just before the starter's relay starts, so that the relay's
         * first measurement of its clock against the database's finds them in step (the context took a while to start).
         */
        @Bean
        SmartLifecycle postboxTestClockStart(TestClock postboxTestClock) {
            return new SmartLifecycle() {
                private volatile boolean running;

                @Override
                public void start() {
                    postboxTestClock.set(TestClock.systemNow().instant());
                    running = true;
                }

                @Override
                public void stop() {
                    running = false;
                }

                @Override
                public boolean isRunning() {
                    return running;
                }

                @Override
                public int getPhase() {
                    return RelayLifecycle.PHASE - 1;
                }
            };
        }
    }

    /** The relay's publisher: records everything, forwards the event bus's channels to their {@code EventBus}. */
    @Bean(name = PostboxAutoConfiguration.PUBLISHER_BEAN)
    @ConditionalOnMissingBean(name = PostboxAutoConfiguration.PUBLISHER_BEAN)
    public RecordingPublisher postboxRecordingPublisher(ObjectProvider<PublisherRoute> routes, Environment env) {
        PostboxTest.PublishTo to = PostboxTest.PublishTo.of(env.getProperty(PostboxTestContextCustomizerFactory.PUBLISH_TO));
        return RecordingPublisher.forwardingTo(new RoutedChannels(routes, to));
    }

    @Bean
    CycleSignal postboxTestCycleSignal() {
        return new CycleSignal();
    }

    /** Wakes {@link PostboxAwait#awaitConsumed} at every delivery to a {@code @PostboxListener} method. */
    @Bean
    ConsumedSignal postboxTestConsumedSignal() {
        return new ConsumedSignal();
    }

    @Bean
    @ConditionalOnMissingBean
    PostboxAwait postboxAwait(Postbox postbox, ObjectProvider<DataSource> dataSource,
                                     ObjectProvider<RelayLifecycle> relay, ObjectProvider<WorkerLifecycle> worker,
                                     CycleSignal postboxTestCycleSignal, ConsumedSignal postboxTestConsumedSignal) {
        return new PostboxAwait(postbox, dataSource::getObject, () -> {
            RelayLifecycle l = relay.getIfAvailable();
            return l == null ? null : l.relay();
        }, () -> {
            WorkerLifecycle l = worker.getIfAvailable();
            return l == null ? null : l.worker();
        }, postboxTestCycleSignal, postboxTestConsumedSignal);
    }
}
