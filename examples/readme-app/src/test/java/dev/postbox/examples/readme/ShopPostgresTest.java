package dev.postbox.examples.readme;

import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The README's application on the local PostgreSQL (a schema of its own), the database the new user tried:
 * Postbox's tables installed by {@code postbox.schema.mode=always}, the shop's by {@code schema.sql}.
 */
class ShopPostgresTest extends ShopContract {

    static final TestDatabase DB = TestDatabase.postgres(null);

    /** Drops the schema when the class ends, after Spring closed its context (the class's store closes last). */
    @RegisterExtension
    static final BeforeAllCallback DROP_SCHEMA_AT_END = context -> context
            .getStore(ExtensionContext.Namespace.create(ShopPostgresTest.class))
            .put("schema", (ExtensionContext.Store.CloseableResource) DB::close);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        Brokers.register(registry);
        registry.add("spring.datasource.url", DB::jdbcUrl);
        registry.add("spring.datasource.username", DB::user);
        registry.add("postbox.schema.mode", () -> "always");
    }
}
