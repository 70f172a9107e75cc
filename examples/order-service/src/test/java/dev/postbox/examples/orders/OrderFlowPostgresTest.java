package dev.postbox.examples.orders;

import dev.postbox.testing.TestDatabase;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link OrderFlowContract} on a fresh PostgreSQL schema (Postbox's tables in it too). */
class OrderFlowPostgresTest extends OrderFlowContract {

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
