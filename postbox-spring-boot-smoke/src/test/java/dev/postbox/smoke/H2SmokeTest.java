package dev.postbox.smoke;

import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

class H2SmokeTest extends SmokeContract {

    static final TestDatabase DB = TestDatabase.h2();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        datasource(registry, DB);
    }

    @BeforeAll
    static void dropDatabaseWithTheContext(@Autowired ConfigurableApplicationContext context) {
        dropWith(context, DB);
    }
}
