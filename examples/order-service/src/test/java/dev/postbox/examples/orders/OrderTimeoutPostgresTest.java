package dev.postbox.examples.orders;

import dev.postbox.testing.TestDatabase;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link OrderTimeoutContract} on a fresh PostgreSQL schema (Postbox's tables in it too). */
class OrderTimeoutPostgresTest extends OrderTimeoutContract {

    static final TestDatabase DB = TestDatabase.postgres(null);

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        register(registry, DB);
    }

    @Override
    protected TestDatabase database() {
        return DB;
    }
}
