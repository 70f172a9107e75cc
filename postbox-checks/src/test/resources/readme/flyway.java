import org.flywaydb.core.Flyway;

import javax.sql.DataSource;

/** The README's Flyway snippet is the body of snippet(), with the application's data source. */
abstract class Snippet {

    DataSource ds;

    void snippet() throws Exception {
        // snippet
    }
}
