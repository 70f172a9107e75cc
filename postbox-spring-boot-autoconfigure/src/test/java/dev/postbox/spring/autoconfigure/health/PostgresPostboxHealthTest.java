package dev.postbox.spring.autoconfigure.health;

import dev.postbox.spring.autoconfigure.BootLine.Health;
import dev.postbox.spring.autoconfigure.BootLine.Status;
import dev.postbox.spring.autoconfigure.metrics.ObservedApp;
import dev.postbox.testing.TcpProxy;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;

import static dev.postbox.spring.autoconfigure.metrics.ObservedApp.await;
import static org.assertj.core.api.Assertions.assertThat;

class PostgresPostboxHealthTest extends PostboxHealthContract {

    @Override
    protected TestDatabase database() {
        return TestDatabase.postgres(null);
    }

    @Test
    void downWithTheErrorWhenTheDatabaseIsUnreachable() throws Exception {
        String schema;
        try (Connection c = db.dataSource().getConnection()) {
            schema = c.getSchema();
        }
        try (TcpProxy proxy = new TcpProxy("127.0.0.1", 5432)) {
            PGSimpleDataSource viaProxy = new PGSimpleDataSource();
            viaProxy.setUrl("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/test");
            viaProxy.setUser(TestDatabase.PG_USER);
            viaProxy.setCurrentSchema(schema);
            ObservedApp.runner(viaProxy).withPropertyValues("postbox.relay.enabled=false").run(context -> {
                assertThat(health(context).getStatus()).isEqualTo(Status.UP);
                proxy.down();
                await("the health is DOWN", () -> health(context).getStatus().equals(Status.DOWN), () -> health(context));
                Health h = health(context);
                assertThat(h.getDetails()).containsKey("error");
                assertThat(h.getDetails().get("error").toString()).contains("PostboxSqlException");
            });
        }
    }
}
