package dev.postbox.examples.readme;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The README's application on H2, the database the README's quick start runs on. */
class ShopH2Test extends ShopContract {

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        Brokers.register(registry);
        registry.add("spring.datasource.url", () -> "jdbc:h2:mem:shop-" + Brokers.RUN + ";DB_CLOSE_DELAY=-1");
    }
}
