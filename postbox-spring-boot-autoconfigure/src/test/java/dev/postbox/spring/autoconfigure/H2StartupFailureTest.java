package dev.postbox.spring.autoconfigure;

import dev.postbox.message.MessageRecord;
import dev.postbox.spring.EventTypeHandler;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class H2StartupFailureTest extends StartupFailureContract {

    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }

    @Override
    protected List<String> noInstallProperties() {
        return List.of("postbox.schema.mode=never");
    }

    @Override
    protected String noInstallMode() {
        return "never";
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoHandlers {
        @Bean
        EventTypeHandler paidOne() {
            return handler("ORDER_PAID");
        }

        @Bean
        EventTypeHandler paidTwo() {
            return handler("ORDER_PAID");
        }

        private static EventTypeHandler handler(String type) {
            return new EventTypeHandler() {
                @Override
                public String eventType() {
                    return type;
                }

                @Override
                public void handle(MessageRecord event) {
                }
            };
        }
    }

    /** The database plays no part here: a contradiction in the set-up itself, reported the same way. */
    @Test
    void twoHandlersForOneEventTypeStopTheStartUpNamingBothAndWhatToDo(CapturedOutput output) {
        assertThatThrownBy(() -> start(List.of("postbox.schema.mode=always"), TwoHandlers.class)).rootCause()
                .isInstanceOf(PostboxConfigurationException.class);
        String report = report(output);
        assertThat(report.substring(0, report.indexOf("Action:")))
                .contains("Two Postbox message handlers for event type 'ORDER_PAID'", "paidOne", "paidTwo");
        assertThat(report.substring(report.indexOf("Action:"))).contains("Keep one handler per event type");
    }
}
