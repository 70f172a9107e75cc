package dev.postbox.examples.orders;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import java.time.Clock;

/**
 * Seed 003's order service on Postbox: {@code POST /orders} writes the order and its ORDER_CREATED event in
 * one transaction; the relay hands the event to the inventory consumer (in-process event bus by default,
 * Kafka with profile {@code kafka}), which reserves stock once per event thanks to the consume log and
 * confirms the order; orders still CREATED after {@code order.compensation.timeout} are cancelled by a
 * compensation job, once each.
 */
@SpringBootApplication
@EnableConfigurationProperties(OrderProperties.class)
public class OrderServiceApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrderServiceApplication.class, args);
    }

    /** The clock of every business timestamp and of the timeout scan. */
    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }
}
