import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.Postbox;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.rabbitmq.RabbitConsumer;
import dev.postbox.rabbitmq.RabbitPublisher;
import dev.postbox.relay.Relay;
import dev.postbox.relay.Routes;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/** The README's postbox-rabbitmq snippet is the body of snippet(); the application's data source and methods. */
abstract class Snippet {

    DataSource dataSource;
    Postbox postbox;

    abstract void reserveStock(Connection c, String orderNo) throws SQLException;

    void snippet() throws Exception {
        // snippet
    }
}
