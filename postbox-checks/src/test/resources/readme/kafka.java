import dev.postbox.Postbox;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.kafka.KafkaEnvelopeConsumer;
import dev.postbox.kafka.KafkaPublisher;
import dev.postbox.relay.Relay;
import dev.postbox.relay.Routes;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/** The README's postbox-kafka snippet is the body of snippet(); the application's data source and methods. */
abstract class Snippet {

    DataSource dataSource;
    Postbox postbox;

    abstract void reserveStock(Connection c, String orderNo) throws SQLException;

    void snippet() throws Exception {
        // snippet
    }
}
