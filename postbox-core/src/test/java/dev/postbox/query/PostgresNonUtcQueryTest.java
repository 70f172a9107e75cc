package dev.postbox.query;

import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.util.TimeZone;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The query suite with the JVM and the PostgreSQL session in Asia/Kolkata (+05:30). pgjdbc sends the
 * JVM's zone as the session TimeZone at connect, so the two cannot differ here.
 */
class PostgresNonUtcQueryTest extends QueryContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres("Asia/Kolkata");
    }

    @Override
    protected String jvmTimeZone() {
        return "Asia/Kolkata";
    }

    @Test
    void suiteReallyRunsOutsideUtc() throws Exception {
        assertThat(queryString("SHOW TimeZone")).isEqualTo("Asia/Kolkata");
        assertThat(TimeZone.getDefault().getID()).isEqualTo("Asia/Kolkata");
    }
}
