package dev.postbox.http;

import dev.postbox.common.ValidationException;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Builder validation, routing and header value encoding: pure logic, no server needed. */
class HttpSettingsTest {

    private static final URI URL = URI.create("http://127.0.0.1:8080/hooks");

    private static void rejected(String setting, String message, Executable build) {
        assertThatThrownBy(build::execute).isInstanceOf(ValidationException.class)
                .hasMessageStartingWith(setting + ": ").hasMessageContaining(message)
                .extracting(e -> ((ValidationException) e).field()).isEqualTo(setting);
    }

    @Test
    void badSettingsAreRejectedNamingTheSetting() {
        rejected("http.endpoint", "at least one endpoint is required", () -> HttpPublisher.builder().build());
        rejected("http.endpoint", "needs an absolute http or https URL", () -> HttpPublisher.builder().endpoint("a", URI.create("ftp://x/y")));
        rejected("http.endpoint", "needs an absolute http or https URL", () -> HttpPublisher.builder().endpoint("a", URI.create("/hooks")));
        rejected("http.endpoint", "needs an absolute http or https URL", () -> HttpPublisher.builder().endpoint("a", null));
        rejected("http.endpoint", "a name is required", () -> HttpPublisher.builder().endpoint(" ", URL));
        rejected("http.endpoint", "endpoint 'a' is configured twice", () -> HttpPublisher.builder().endpoint("a", URL).endpoint("a", URL));
        rejected("http.route", "topic 'order.event' is routed to endpoint 'billing', which is not configured (known: [a])",
                () -> HttpPublisher.builder().endpoint("a", URL).route("order.event", "billing").build());
        rejected("http.route", "a topic is required", () -> HttpPublisher.builder().route("", "a"));
        rejected("http.maxInFlight", "between 1 and 10000 (was 0)", () -> HttpPublisher.builder().maxInFlight(0));
        rejected("http.requestTimeout", "must be positive (was PT0S)", () -> HttpPublisher.builder().requestTimeout(Duration.ZERO));
        rejected("http.connectTimeout", "must be positive (was PT-1S)", () -> HttpPublisher.builder().connectTimeout(Duration.ofSeconds(-1)));
        rejected("http.secret", "must not be blank", () -> HttpPublisher.builder().secret(""));
        rejected("http.clock", "must not be null", () -> HttpPublisher.builder().clock(null));
        rejected("webhook.secret", "must not be blank", () -> WebhookVerifier.of(null));
        rejected("webhook.tolerance", "must be positive", () -> WebhookVerifier.of("s").tolerance(Duration.ofMinutes(-5)));
        rejected("webhook.consumer", "must not be null", () -> WebhookReceiver.builder(null));
    }

    @Test
    void anEventGoesToItsTopicsRouteThenTheEndpointNamedLikeItsTopicThenLikeItsChannel() {
        HttpPublisher p = HttpPublisher.builder().endpoint("billing", URL).endpoint("order.event", URL).endpoint("WEBHOOK", URL)
                .route("payment.event", "billing").route("order.event", "billing").build();
        assertThat(p.endpointName(record("MQ", "payment.event"))).isEqualTo("billing");
        assertThat(p.endpointName(record("WEBHOOK", "order.event"))).as("a route wins over the name").isEqualTo("billing");
        assertThat(p.endpointName(record("MQ", "stock.event"))).isNull();
        assertThat(p.endpointName(record("WEBHOOK", "stock.event"))).isEqualTo("WEBHOOK");
        assertThat(p.endpointName(record("WEBHOOK", null))).isEqualTo("WEBHOOK");
        HttpPublisher byTopic = HttpPublisher.builder().endpoint("stock.event", URL).build();
        assertThat(byTopic.endpointName(record("MQ", "stock.event"))).isEqualTo("stock.event");
    }

    @Test
    void headerValuesThatHttpCannotCarryAreEncodedAndDecodedBack() {
        for (String v : new String[] {"plain value, with commas", "订单-42", "  padded  ", "line\nbreak", "UTF-8''%41", "utf-8''x",
                "emoji 🎉", "", "100%"}) {
            String encoded = HeaderValues.encode(v);
            assertThat(encoded).matches("[\\x21-\\x7e]([\\x20-\\x7e]*[\\x21-\\x7e])?|");
            assertThat(HeaderValues.decode("h", encoded)).as(v).isEqualTo(v);
        }
        assertThat(HeaderValues.encode("plain value, with commas")).isEqualTo("plain value, with commas");
        assertThat(HeaderValues.encode("订单")).isEqualTo("UTF-8''%E8%AE%A2%E5%8D%95");
        assertThatThrownBy(() -> HeaderValues.decode("postbox-aggregate-id", "UTF-8''%E"))
                .hasMessageStartingWith("postbox-aggregate-id: malformed percent-encoding");
    }

    private static OutboxRecord record(String channel, String topic) {
        Instant now = Instant.now();
        return new OutboxRecord(1, "E-1", "ORDER", "A1", "T", 1, "test", channel, topic, null, "{}", Map.of(),
                OutboxStatus.PENDING, 0, 5, null, null, null, null, null, null, null, null, 0, now, now);
    }
}
