import dev.postbox.Postbox;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.nats.NatsPublisher;
import dev.postbox.nats.NatsSubscriber;
import dev.postbox.relay.Relay;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.StreamConfiguration;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The README's postbox-nats snippet is the body of snippet(); the application's data source and methods
 * ({@code Connection} is NATS's here, as in the snippet).
 */
abstract class Snippet {

    DataSource dataSource;
    Postbox postbox;

    abstract void reserveStock(java.sql.Connection c, String orderNo) throws SQLException;

    void snippet() throws Exception {
        // snippet
    }
}
