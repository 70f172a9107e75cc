package dev.postbox.query;

import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.util.TimeZone;

import static org.assertj.core.api.Assertions.assertThat;

/** The query suite with a MariaDB session at +05:30 and the JVM in America/New_York. */
class MariaDbNonUtcQueryTest extends QueryContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb("+05:30");
    }

    @Override
    protected String jvmTimeZone() {
        return "America/New_York";
    }

    @Test
    void suiteReallyRunsOutsideUtc() throws Exception {
        assertThat(queryString("SELECT @@session.time_zone")).isEqualTo("+05:30");
        assertThat(TimeZone.getDefault().getID()).isEqualTo("America/New_York");
    }
}
