package dev.postbox.spring.autoconfigure;

import dev.postbox.Postbox;
import dev.postbox.compensation.CompensationJob;
import dev.postbox.compensation.CompensationListener;
import dev.postbox.inbox.InboxListener;
import dev.postbox.message.MessageWorkerBuilder;
import dev.postbox.message.WorkerListener;
import dev.postbox.relay.EventBus;
import dev.postbox.relay.RelayBuilder;
import dev.postbox.relay.RelayListener;
import dev.postbox.relay.Routes;
import dev.postbox.spi.Publisher;
import dev.postbox.spring.PublisherRoute;
import dev.postbox.spring.TransactionalCompensations;
import dev.postbox.spring.TransactionalInbox;
import dev.postbox.spring.TransactionalMessageEvents;
import dev.postbox.spring.TransactionalOutbox;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

import javax.sql.DataSource;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Postbox on the application's single (or primary) {@link DataSource}: the {@link Postbox}, the
 * transaction-joining {@link TransactionalOutbox} and {@link TransactionalInbox}, the in-process
 * {@link EventBus}, the relay (on by default, its own small pool), the message-event worker for the handler
 * beans, and the application's {@link CompensationJob} beans on their schedules.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration"})
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnProperty(prefix = "postbox", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(PostboxProperties.class)
@Import({PostboxFlywayConfiguration.class, PostboxLiquibaseConfiguration.class})
public class PostboxAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(PostboxAutoConfiguration.class);

    /** Name of a {@link Publisher} bean that, when present, replaces the starter's routing for the relay. */
    public static final String PUBLISHER_BEAN = "postboxPublisher";

    /**
     * The name of a {@link Clock} bean the starter's {@code Postbox} takes its times from (default the system's UTC
     * clock): a test kit's settable clock, e.g. postbox-test's {@code @PostboxTest}.
     */
    public static final String CLOCK_BEAN = "postboxClock";

    @Bean
    @ConditionalOnMissingBean
    public Postbox postbox(DataSource dataSource, PostboxProperties p, Environment env,
                           ObjectProvider<SchemaMigrations> migrations,
                           @Qualifier(CLOCK_BEAN) ObjectProvider<Clock> clock,
                           ObjectProvider<dev.postbox.tracing.PostboxTracing> tracing,
                           ObjectProvider<InboxListener> inboxListeners,
                           ObjectProvider<CompensationListener> compensationListeners) {
        Postbox.Builder b = Postbox.builder(dataSource)
                .inboxListener(new LateListeners.Inbox(inboxListeners))
                .compensationListener(new LateListeners.Compensation(compensationListeners))
                .tablePrefix(p.getTablePrefix())
                .maxPayloadBytes(p.getMaxPayloadBytes())
                .maxHeadersBytes(p.getMaxHeadersBytes())
                .notifyOnWrite(p.isNotifyOnWrite())
                .notifyInterval(p.getNotifyInterval());
        String source = p.getSource() != null ? p.getSource() : env.getProperty("spring.application.name");
        if (source != null && !source.isBlank()) {
            b.source(source);
        }
        clock.ifAvailable(b::clock);
        tracing.ifUnique(b::tracing);
        if (env.containsProperty("postbox.node-id")) {
            log.warn("postbox.node-id is set but no longer used: the database assigns every Postbox id");
        }
        Postbox postbox = PropertyErrors.named("postbox.", b::build);
        // installs or migrates as postbox.schema.mode says, then fails the start-up on a missing or old schema
        SchemaStartup.prepare(postbox, p.getSchema().getMode(), migrations.getIfAvailable());
        return postbox;
    }

    @Bean
    @ConditionalOnMissingBean
    public TransactionalOutbox transactionalOutbox(Postbox postbox, DataSource dataSource) {
        return new TransactionalOutbox(postbox, dataSource);
    }

    @Bean
    @ConditionalOnMissingBean
    public TransactionalInbox transactionalInbox(Postbox postbox, DataSource dataSource) {
        return new TransactionalInbox(postbox, dataSource);
    }

    @Bean
    @ConditionalOnMissingBean
    public TransactionalMessageEvents transactionalMessageEvents(Postbox postbox, DataSource dataSource) {
        return new TransactionalMessageEvents(postbox, dataSource);
    }

    @Bean
    @ConditionalOnMissingBean
    public TransactionalCompensations transactionalCompensations(Postbox postbox, DataSource dataSource) {
        return new TransactionalCompensations(postbox, dataSource);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "postbox.event-bus", name = "enabled", havingValue = "true", matchIfMissing = true)
    static class EventBusConfiguration {

        @Bean
        @ConditionalOnMissingBean
        EventBus postboxEventBus(PostboxProperties p) {
            return new EventBus(p.getEventBus().getWhenNoSubscriber());
        }

        @Bean
        PublisherRoute postboxEventBusRoute(EventBus bus, PostboxProperties p) {
            return new PublisherRoute("event-bus", p.getEventBus().getChannels(), bus);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "postbox.relay", name = "enabled", havingValue = "true", matchIfMissing = true)
    static class RelayConfiguration {

        @Bean
        @ConditionalOnMissingBean
        RelayLifecycle postboxRelay(Postbox postbox, PostboxProperties p,
                                    @Qualifier(PUBLISHER_BEAN) ObjectProvider<Publisher> publisherBean,
                                    ObjectProvider<PublisherRoute> routes, ObjectProvider<RelayListener> listeners) {
            Publisher publisher = publisherBean.getIfAvailable();
            if (publisher == null) {
                publisher = routes(routes.orderedStream().toList());
            }
            PostboxProperties.Relay r = p.getRelay();
            RelayBuilder b = postbox.relay(publisher)
                    .batchSize(r.getBatchSize())
                    .leaseDuration(r.getLeaseDuration())
                    .sendTimeout(r.getSendTimeout())
                    .pollInterval(r.getPollIntervalMin(), r.getPollIntervalMax())
                    .poolSize(r.getPoolSize())
                    .inFlightBatches(r.getInFlightBatches())
                    .shutdownTimeout(r.getShutdownTimeout())
                    .ordered(r.isOrdered())
                    .unorderedTopics(r.getUnorderedTopics())
                    .asyncCommit(r.isAsyncCommit())
                    .retryPolicy(PropertyErrors.named("postbox.relay.", () -> dev.postbox.common.RetryPolicy.exponential(
                            r.getRetryPolicyBase(), r.getRetryPolicyCap())))
                    .listenForNotifications(r.isListenForNotifications())
                    .clockSkewCheck(r.isClockSkewCheck())
                    .listener(Listeners.relay(listeners.orderedStream().toList()));
            if (r.getInstanceId() != null) {
                b.instanceId(r.getInstanceId());
            }
            if (r.getMaxClockSkew() != null) {
                b.maxClockSkew(r.getMaxClockSkew());
            }
            // builds now: a bad postbox.relay.* value fails the start-up, naming the property
            return PropertyErrors.named("postbox.relay.", () -> new RelayLifecycle(b));
        }

        static Publisher routes(List<PublisherRoute> routes) {
            if (routes.isEmpty()) {
                throw new PostboxConfigurationException("postbox.relay: the relay has no publisher", "Enable"
                        + " postbox.event-bus, put a transport module on the class path, declare PublisherRoute beans or a"
                        + " Publisher bean named '" + PUBLISHER_BEAN + "', or set postbox.relay.enabled=false.");
            }
            Map<String, String> owner = new LinkedHashMap<>();
            Routes.Builder b = Routes.builder();
            for (PublisherRoute route : routes) {
                for (String channel : route.channels()) {
                    String previous = owner.putIfAbsent(channel, route.name());
                    if (previous != null) {
                        throw new PostboxConfigurationException("postbox.relay: channel '" + channel + "' is routed to"
                                + " both " + previous + " and " + route.name(), "Give each channel one publisher: change"
                                + " the channels of one of them (postbox.<transport>.channels or its PublisherRoute bean).");
                    }
                    b.channel(channel, route.publisher());
                }
            }
            log.info("Postbox relay routes: {}", routes.stream()
                    .map(r -> String.join(",", r.channels()) + " -> " + r.name()).collect(Collectors.joining("; ")));
            return b.build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "postbox.worker", name = "enabled", havingValue = "true", matchIfMissing = true)
    static class WorkerConfiguration {

        @Bean
        static MessageHandlers postboxMessageHandlers() {
            return new MessageHandlers();
        }

        @Bean
        @ConditionalOnMissingBean
        WorkerLifecycle postboxWorker(Postbox postbox, PostboxProperties p, MessageHandlers handlers,
                                      ObjectProvider<WorkerListener> listeners) {
            PostboxProperties.Worker w = p.getWorker();
            return new WorkerLifecycle(() -> {
                MessageWorkerBuilder b = postbox.worker()
                        .threads(w.getThreads())
                        .batchSize(w.getBatchSize())
                        .pollInterval(w.getPollIntervalMin(), w.getPollIntervalMax())
                        .handlerTimeout(w.getHandlerTimeout())
                        .stuckTimeout(w.getStuckTimeout())
                        .shutdownTimeout(w.getShutdownTimeout())
                        .listener(Listeners.worker(listeners.orderedStream().toList()));
                if (w.getInstanceId() != null) {
                    b.instanceId(w.getInstanceId());
                }
                return b;
            }, handlers);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "postbox.compensation", name = "enabled", havingValue = "true", matchIfMissing = true)
    @ConditionalOnBean(CompensationJob.class)
    static class CompensationConfiguration {

        @Bean
        CompensationJobsLifecycle postboxCompensationJobs(List<CompensationJob> jobs) {
            return new CompensationJobsLifecycle(jobs);
        }
    }
    /**
     * Retention ({@code postbox.retention.*}), only when {@code postbox.retention.enabled=true}: the {@code Retention}
     * bean, built at start-up (a bad value or no rule at all fails the start-up, naming the property, before anything
     * runs; with postbox.retention.outbox.strategy=partitions an empty plain outbox is converted to its partitioned
     * variant, one holding rows fails the start-up), and its lifecycle, which starts it in every instance (the core's
     * lease picks the runner).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "postbox.retention", name = "enabled", havingValue = "true")
    static class RetentionConfiguration {

        @Bean
        @ConditionalOnMissingBean
        dev.postbox.retention.Retention postboxRetention(Postbox postbox, PostboxProperties p) {
            PostboxProperties.RetentionProperties r = p.getRetention();
            dev.postbox.retention.Retention retention = RetentionSettings.build(postbox, r);
            RetentionSettings.consumeLogWindowWarning(r.getConsumeLogWindow(), p.getRelay().getLeaseDuration())
                    .ifPresent(log::warn);
            return retention;
        }

        @Bean
        @ConditionalOnMissingBean
        RetentionLifecycle postboxRetentionLifecycle(dev.postbox.retention.Retention retention) {
            return new RetentionLifecycle(retention);
        }
    }
}
