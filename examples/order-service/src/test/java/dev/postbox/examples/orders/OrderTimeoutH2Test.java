package dev.postbox.examples.orders;

import dev.postbox.testing.TestDatabase;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link OrderTimeoutContract} on a fresh in-memory H2 database. */
class OrderTimeoutH2Test extends OrderTimeoutContract {

    static final TestDatabase DB = TestDatabase.h2();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        register(registry, DB);
    }

    @Override
    protected TestDatabase database() {
        return DB;
    }
}
