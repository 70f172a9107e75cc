package dev.postbox.spring.autoconfigure.listener;

import dev.postbox.Postbox;
import dev.postbox.relay.EventBus;
import dev.postbox.spring.PostboxListenerObserver;
import dev.postbox.spring.SpringConsumerTransactions;
import dev.postbox.spring.Upcaster;
import dev.postbox.spring.autoconfigure.PostboxAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;

import javax.sql.DataSource;

/**
 * {@link dev.postbox.spring.PostboxListener} methods: finds them on every bean, and runs them once the context is
 * refreshed ({@link PostboxListeners}) on the transports whose modules are on the class path: the in-process event
 * bus, Kafka, RabbitMQ, NATS JetStream and HTTP webhooks (servlet applications). Each delivery runs in a new
 * transaction of the application's transaction manager (its unique one, else one for the Postbox data source).
 * Off with {@code postbox.listeners.enabled=false}.
 */
@AutoConfiguration(after = PostboxAutoConfiguration.class)
@ConditionalOnBean(Postbox.class)
@ConditionalOnProperty(prefix = "postbox.listeners", name = "enabled", havingValue = "true", matchIfMissing = true)
class PostboxListenerAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(PostboxListenerAutoConfiguration.class);

    /** Static: a bean post-processor is created before the other beans, without this configuration's instance. */
    @Bean
    static ListenerRegistrar postboxListenerRegistrar() {
        return new ListenerRegistrar();
    }

    @Bean
    PostboxListeners postboxListeners(ListenerRegistrar registrar, ObjectProvider<ListenerTransport> transports,
                                      ObjectProvider<Upcaster> upcasters, ObjectProvider<PlatformTransactionManager> managers,
                                      ObjectProvider<PostboxListenerObserver> observers, DataSource dataSource,
                                      Postbox postbox, ListableBeanFactory beans, Environment env) {
        PlatformTransactionManager tm = managers.getIfUnique();
        if (tm == null) {
            log.info("Postbox listeners: no unique transaction manager; deliveries run in transactions of a"
                    + " DataSourceTransactionManager of the Postbox data source");
            tm = new DataSourceTransactionManager(dataSource);
        }
        return new PostboxListeners(registrar, transports.orderedStream().toList(), upcasters.orderedStream().toList(),
                payloadMapper(beans), new SpringConsumerTransactions(dataSource, tm), postbox.inbox(),
                observers.orderedStream().toList(), env, postbox.tracing());
    }

    /**
     * The application's Jackson 3 mapper, else its Jackson 2 one, else Jackson's defaults (3, else 2), else none. A
     * Jackson whose classes do not link (a Jackson 3 beside Jackson 2 annotations too old for it) counts as absent.
     */
    static PayloadMapper payloadMapper(ListableBeanFactory beans) {
        ClassLoader cl = PostboxListenerAutoConfiguration.class.getClassLoader();
        boolean jackson3 = ClassUtils.isPresent("tools.jackson.databind.ObjectMapper", cl);
        boolean jackson2 = ClassUtils.isPresent("com.fasterxml.jackson.databind.ObjectMapper", cl);
        if (jackson3) {
            try {
                PayloadMapper m = Jackson3PayloadMapper.ofBean(beans);
                if (m != null) {
                    return m;
                }
            } catch (LinkageError e) {
                log.warn("Postbox listeners: Jackson 3 is on the class path but does not link ({}); not used", e.toString());
                jackson3 = false;
            }
        }
        PayloadMapper m = jackson2 ? Jackson2PayloadMapper.ofBean(beans) : null;
        if (m == null && jackson3) {
            try {
                m = Jackson3PayloadMapper.defaults();
            } catch (LinkageError e) {
                log.warn("Postbox listeners: Jackson 3 is on the class path but does not link ({}); not used", e.toString());
            }
        }
        if (m == null && jackson2) {
            m = Jackson2PayloadMapper.defaults();
        }
        return m == null ? PayloadMapper.NONE : m;
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean(EventBus.class)
    static class EventBusListeners {
        @Bean
        ListenerTransport postboxEventBusListenerTransport(EventBus bus) {
            return new EventBusListenerTransport(bus);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.postbox.kafka.KafkaEnvelopeConsumer")
    static class KafkaListeners {
        @Bean
        ListenerTransport postboxKafkaListenerTransport(Environment env) {
            return new KafkaListenerTransport(env);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.postbox.rabbitmq.RabbitConsumer")
    static class RabbitListeners {
        @Bean
        ListenerTransport postboxRabbitListenerTransport(ObjectProvider<com.rabbitmq.client.ConnectionFactory> factory) {
            return new RabbitListenerTransport(factory);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.postbox.nats.NatsSubscriber")
    static class NatsListeners {
        @Bean
        ListenerTransport postboxNatsListenerTransport(ObjectProvider<dev.postbox.nats.NatsPublisher> publisher, Environment env) {
            return new NatsListenerTransport(publisher, env);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"dev.postbox.http.WebhookReceiver", "jakarta.servlet.Filter",
            "org.springframework.boot.web.servlet.FilterRegistrationBean"})
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    static class HttpListeners {
        @Bean
        HttpListenerTransport postboxHttpListenerTransport(Environment env) {
            return new HttpListenerTransport(env);
        }

        @Bean
        FilterRegistrationBean<HttpListenerTransport> postboxWebhookFilter(HttpListenerTransport transport) {
            FilterRegistrationBean<HttpListenerTransport> r = new FilterRegistrationBean<>(transport);
            r.setName("postboxWebhooks");
            r.addUrlPatterns("/*");
            r.setOrder(Ordered.HIGHEST_PRECEDENCE + 100);
            return r;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
    static class ListenerMeters {
        @Bean
        PostboxListenerObserver postboxListenerMeters(ObjectProvider<MeterRegistry> registry) {
            return new MeterOutcomes(registry);
        }
    }
}
