package dev.postbox.test.spring.shop;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

import java.time.Clock;

/**
 * A small shop on the Postbox starter, for the {@code @PostboxTest} suite: orders with their events written in the
 * order's transaction, an inventory consumer on the in-process event bus behind an inbox, and a receipt sent by a
 * message-event handler. Its business times come from its own {@link Clock} bean, as an application's should.
 */
@SpringBootApplication
public class ShopApplication {

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }
}
