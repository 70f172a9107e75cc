import dev.postbox.Postbox;
import dev.postbox.common.RetryPolicy;
import dev.postbox.compensation.CompensationJob;
import dev.postbox.compensation.CompensationStatus;
import dev.postbox.inbox.InboxResult;
import dev.postbox.message.AfterMaxRetries;
import dev.postbox.message.MessageEvent;
import dev.postbox.message.MessageStatus;
import dev.postbox.message.MessageWorker;
import dev.postbox.operations.BulkPreview;
import dev.postbox.operations.BulkProgress;
import dev.postbox.operations.BulkRequest;
import dev.postbox.operations.BulkResult;
import dev.postbox.operations.EventDetail;
import dev.postbox.operations.EventKind;
import dev.postbox.operations.EventSummary;
import dev.postbox.operations.Operations;
import dev.postbox.operations.Operator;
import dev.postbox.operations.Role;
import dev.postbox.operations.SearchPage;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.outbox.WriteResult;
import dev.postbox.query.OutboxSearch;
import dev.postbox.query.Page;
import dev.postbox.query.PageRequest;
import dev.postbox.relay.EventBus;
import dev.postbox.relay.Relay;
import dev.postbox.relay.Routes;
import dev.postbox.retention.OutboxPartitions;
import dev.postbox.retention.Retention;
import dev.postbox.retention.RetentionPlan;
import dev.postbox.retention.RetentionPolicy;
import dev.postbox.retention.RetentionReport;
import dev.postbox.retention.RetentionTable;
import dev.postbox.spi.Envelope;
import dev.postbox.spi.Publisher;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * The README's snippets of postbox-core (plain Java, no Spring) are the body of snippet(); this class declares what
 * they use without showing it: the application's data source, its own objects and methods.
 */
abstract class Snippet {

    record Order(String no) {
    }

    interface SearchIndex {
        void index(String json);
    }

    interface Sms {
        void send(String payload);
    }

    interface Refunds {
        void execute(String orderNo);
    }

    DataSource dataSource;
    Postbox postbox;
    Connection c;
    Order order;
    String orderNo;
    String json;
    String traceId;
    Envelope envelope;
    SearchIndex search;
    Publisher kafkaPublisher;
    Sms sms;
    Refunds refunds;

    abstract void insertOrder(Connection c, Order order) throws SQLException;

    abstract void sendSms() throws Exception;

    abstract void reserveStock(Connection c, String orderNo) throws SQLException;

    abstract List<String> findCreatedOrdersOlderThan(Connection c, Duration age, int limit) throws SQLException;

    abstract boolean cancelIfStillCreated(Connection c, String orderNo) throws SQLException;

    void snippet() throws Exception {
        // snippet
    }
}
