package dev.postbox.smoke;

import dev.postbox.Postbox;
import dev.postbox.message.MessageEvent;
import dev.postbox.message.MessageRecord;
import dev.postbox.spring.PostboxMessageHandler;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Message events: submitted in a transaction, handled later by the starter's worker. */
@Service
public class Tasks {

    public static final String TYPE = "SMOKE_TASK";

    private final Postbox postbox;
    private final DataSource dataSource;
    private final Set<String> done = ConcurrentHashMap.newKeySet();

    public Tasks(Postbox postbox, DataSource dataSource) {
        this.postbox = postbox;
        this.dataSource = dataSource;
    }

    @Transactional
    public void submit(String taskNo) {
        Connection c = DataSourceUtils.getConnection(dataSource);
        try {
            postbox.messages().create(c, MessageEvent.builder().eventNo(taskNo).eventType(TYPE).biz("TASK", taskNo)
                    .payload("{}").build());
        } finally {
            DataSourceUtils.releaseConnection(c, dataSource);
        }
    }

    @PostboxMessageHandler(TYPE)
    public void handle(MessageRecord event) {
        done.add(event.eventNo());
    }

    /** The event_no of every task handled. */
    public Set<String> done() {
        return done;
    }
}
