package dev.postbox.examples.orders.compensation;

import dev.postbox.compensation.CompensationJob;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The timeout-cancel job as a bean: the starter runs it every {@code order.compensation.interval} and stops it on shutdown. */
@Configuration(proxyBeanMethods = false)
public class CompensationConfiguration {

    @Bean
    CompensationJob orderTimeoutCancelJob(OrderTimeoutCancel timeoutCancel) {
        return timeoutCancel.newJob();
    }
}
