import dev.postbox.Postbox;
import dev.postbox.compensation.CompensationJob;
import dev.postbox.message.MessageRecord;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.spring.PostboxMessageHandler;
import dev.postbox.spring.TransactionalInbox;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.annotation.Transactional;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * The README's Spring Boot bean methods are members of this class, which declares what they use without showing
 * it: the starter's beans and the application's own methods.
 */
abstract class Snippet {

    interface Stock {
        void reserve(String orderNo);
    }

    TransactionalInbox inbox;
    Stock stock;

    abstract List<String> createdOrdersOlderThan(Connection c, Duration age, int limit) throws SQLException;

    abstract boolean cancelIfCreated(Connection c, String orderNo) throws SQLException;

    abstract OutboxEvent orderCancelled(String orderNo);

    // snippet
}
