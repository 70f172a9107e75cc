import com.sun.net.httpserver.HttpServer;
import dev.postbox.Postbox;
import dev.postbox.http.HttpPublisher;
import dev.postbox.http.WebhookHttpHandler;
import dev.postbox.http.WebhookReceiver;
import dev.postbox.http.WebhookVerifier;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.relay.Relay;

import javax.sql.DataSource;
import java.net.InetSocketAddress;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executors;

/** The README's postbox-http snippets are the body of snippet(); the application's data source and methods. */
abstract class Snippet {

    DataSource dataSource;
    Postbox postbox;

    abstract void book(Connection c, String orderNo, String payload) throws SQLException;

    void snippet() throws Exception {
        // snippet
    }
}
