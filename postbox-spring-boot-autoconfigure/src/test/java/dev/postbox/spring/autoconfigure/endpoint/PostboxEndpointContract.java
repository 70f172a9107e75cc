package dev.postbox.spring.autoconfigure.endpoint;

import dev.postbox.spring.autoconfigure.metrics.ObservedApp;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;

import java.util.List;
import java.util.Map;

import static dev.postbox.spring.autoconfigure.metrics.ObservedApp.await;
import static dev.postbox.spring.autoconfigure.metrics.ObservedApp.write;
import static org.assertj.core.api.Assertions.assertThat;

/** The {@code postbox} Actuator endpoint in a started application on a real database; bound per database. */
abstract class PostboxEndpointContract {

    private TestDatabase db;

    protected abstract TestDatabase database();

    @BeforeEach
    void open() {
        db = database();
    }

    @AfterEach
    void close() {
        db.close();
    }

    @Test
    @SuppressWarnings("unchecked")
    final void showsBacklogLiveRelaysAndTheLastErrorsWithoutPayloads() {
        ObservedApp.runner(db.dataSource())
                .withConfiguration(AutoConfigurations.of(PostboxEndpointAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasSingleBean(PostboxEndpoint.class);
                    PostboxEndpoint endpoint = context.getBean(PostboxEndpoint.class);
                    write(context, "E-DEAD", "NOWHERE"); // no route: DEAD at once, with the reason
                    await("the dead event and a live relay show", () -> {
                        Map<String, Object> r = endpoint.read();
                        Map<String, Object> outbox = (Map<String, Object>) ((Map<String, Object>) r.get("backlog")).get("outbox");
                        List<Map<String, Object>> relays = (List<Map<String, Object>>) r.get("relays");
                        return Long.valueOf(1).equals(outbox.get("dead"))
                                && relays.stream().anyMatch(x -> Boolean.TRUE.equals(x.get("alive")));
                    }, () -> String.valueOf(endpoint.read()));
                    Map<String, Object> r = endpoint.read();
                    assertThat(r).containsKeys("readAt", "refreshInterval", "backlog", "relays", "lastErrors");
                    assertThat(r.get("refreshInterval")).isEqualTo("PT0.2S");
                    Map<String, Object> backlog = (Map<String, Object>) r.get("backlog");
                    assertThat((Map<String, Object>) backlog.get("outbox"))
                            .containsKeys("pending", "publishing", "failed", "dead", "oldestUnfinishedAge");
                    assertThat((Map<String, Object>) backlog.get("messages")).containsKeys("processing");
                    Map<String, Object> relay = ((List<Map<String, Object>>) r.get("relays")).get(0);
                    assertThat(relay).containsKeys("id", "host", "lastHeartbeat", "alive");
                    List<Map<String, Object>> errors = (List<Map<String, Object>>) r.get("lastErrors");
                    assertThat(errors).hasSize(1);
                    assertThat(errors.get(0)).containsEntry("eventNo", "E-DEAD").containsEntry("channel", "NOWHERE")
                            .containsEntry("status", "DEAD").containsKeys("failReason", "time")
                            .doesNotContainKeys("payload", "headers");
                    assertThat((String) errors.get(0).get("failReason")).isNotBlank();
                });
    }
}
