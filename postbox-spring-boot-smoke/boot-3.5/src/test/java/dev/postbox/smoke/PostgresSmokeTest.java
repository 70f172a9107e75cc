package dev.postbox.smoke;

import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

class PostgresSmokeTest extends SmokeContract {

    static final TestDatabase DB = TestDatabase.postgres(null);

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        datasource(registry, DB);
    }

    @AfterAll
    static void drop(@Autowired ConfigurableApplicationContext context) {
        context.stop(); // relay, worker and metrics stop before the database goes; Spring closes the context after
        DB.close();
    }
}
