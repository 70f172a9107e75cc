package dev.postbox.http;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.PublishResult;
import dev.postbox.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Signatures, the time window and deliveries that are not Postbox envelopes. */
class WebhookSecurityTest extends WebhookFixture {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private HttpResponse<String> post(Map<String, String> headers, byte[] body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(server.uri("/hooks")).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(b::header);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Map<String, String> envelopeHeaders(String eventNo) {
        return Map.of("Postbox-Event-No", eventNo, "Postbox-Event-Type", "ORDER_PAID", "Postbox-Event-Version", "1",
                "Postbox-Aggregate-Type", "ORDER", "Postbox-Aggregate-Id", "A1");
    }

    private static Map<String, String> with(Map<String, String> headers, String name, String value) {
        Map<String, String> h = new java.util.HashMap<>(headers);
        h.put(name, value);
        return h;
    }

    @Test
    void aSignedEnvelopeIsAcceptedAndATamperedOneIsRejectedWith401() throws Exception {
        byte[] body = "{\"amount\":100}".getBytes(StandardCharsets.UTF_8);
        long t = Instant.now().getEpochSecond();
        String signature = Signatures.header(SECRET.getBytes(StandardCharsets.UTF_8), t, body);

        HttpResponse<String> tampered = post(with(envelopeHeaders("S-1"), "Postbox-Signature", signature),
                "{\"amount\":999}".getBytes(StandardCharsets.UTF_8));
        assertThat(tampered.statusCode()).isEqualTo(401);
        assertThat(tampered.body()).contains("does not match the body");

        HttpResponse<String> forged = post(with(envelopeHeaders("S-1"), "Postbox-Signature",
                "t=" + t + ",v1=" + "ab".repeat(32)), body);
        assertThat(forged.statusCode()).isEqualTo(401);

        HttpResponse<String> unsigned = post(envelopeHeaders("S-1"), body);
        assertThat(unsigned.statusCode()).isEqualTo(401);
        assertThat(unsigned.body()).isEqualTo("Postbox-Signature header is missing");
        assertThat(handled).as("no rejected request ran the work").isEmpty();

        HttpResponse<String> genuine = post(with(envelopeHeaders("S-1"), "Postbox-Signature", signature), body);
        assertThat(genuine.statusCode()).isEqualTo(200);
        assertThat(genuine.body()).isEqualTo("ran");
        assertThat(post(with(envelopeHeaders("S-1"), "Postbox-Signature", signature), body).body()).isEqualTo("duplicate");
        assertThat(handled).hasSize(1);
    }

    @Test
    void aPublisherWithAnotherSecretIsRejectedAndItsEventGoesDead() throws Exception {
        OutboxRecord r = write(event("S-2", "A1").build());
        PublishResult result = publishOne(publisher().secret("another-secret-0123456789abcdef").build(), r);
        assertThat(result.kind()).isEqualTo(PublishResult.Kind.DEAD);
        assertThat(result.reason()).startsWith("HTTP 401 from endpoint 'WEBHOOK': Postbox-Signature does not match the body");
        assertThat(handled).isEmpty();
    }

    @Test
    void aSignatureOutsideTheTimeWindowIsRejected() throws Exception {
        MutableClock now = new MutableClock(Instant.parse("2026-06-01T12:00:00Z"));
        WebhookVerifier verifier = WebhookVerifier.of(SECRET).clock(now);
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
        byte[] secret = SECRET.getBytes(StandardCharsets.UTF_8);
        long t = now.instant().getEpochSecond();

        verifier.verify(Signatures.header(secret, t - 299, body), body);
        verifier.verify(Signatures.header(secret, t + 299, body), body);
        assertThatThrownBy(() -> verifier.verify(Signatures.header(secret, t - 301, body), body))
                .isInstanceOf(WebhookSignatureException.class)
                .hasMessage("Postbox-Signature time 2026-06-01T11:54:59Z is outside the tolerance of PT5M around now"
                        + " (2026-06-01T12:00:00Z): a replay, or clocks out of sync");
        assertThatThrownBy(() -> verifier.verify(Signatures.header(secret, t + 301, body), body))
                .hasMessageContaining("outside the tolerance");
        verifier.tolerance(Duration.ofMinutes(10)).verify(Signatures.header(secret, t - 500, body), body);
        assertThatThrownBy(() -> verifier.verify("v1=abcd", body)).hasMessage("Postbox-Signature is malformed: expected t=<unix seconds>,v1=<hex>");
        assertThatThrownBy(() -> verifier.verify("t=soon,v1=abcd", body)).hasMessageContaining("malformed");
        String rotated = "t=" + t + ",v1=" + "00".repeat(32) + "," + Signatures.header(secret, t, body).substring(("t=" + t + ",").length());
        verifier.verify(rotated, body);

        // end to end: a sender whose clock is 10 minutes behind is refused and its event goes DEAD
        Clock behind = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-10));
        PublishResult late = publishOne(publisher().clock(behind).build(), write(event("S-3", "A1").build()));
        assertThat(late.kind()).isEqualTo(PublishResult.Kind.DEAD);
        assertThat(late.reason()).startsWith("HTTP 401 from endpoint 'WEBHOOK': Postbox-Signature time").contains("outside the tolerance");
        assertThat(handled).isEmpty();
    }

    @Test
    void aDeliveryThatIsNotAnEnvelopeIsAnswered400NamingTheHeader() throws Exception {
        byte[] body = "{\"hello\":1}".getBytes(StandardCharsets.UTF_8);
        Map<String, String> signed = Map.of("Postbox-Signature",
                Signatures.header(SECRET.getBytes(StandardCharsets.UTF_8), Instant.now().getEpochSecond(), body));
        HttpResponse<String> plain = post(signed, body);
        assertThat(plain.statusCode()).isEqualTo(400);
        assertThat(plain.body()).isEqualTo("not a Postbox envelope: postbox-event-version: header is missing:"
                + " not a Postbox delivery, or a transport dropped it");

        Map<String, String> noType = new java.util.HashMap<>(envelopeHeaders("N-1"));
        noType.remove("Postbox-Event-Type");
        noType.putAll(signed);
        assertThat(post(noType, body).body()).contains("postbox-event-type: header is missing");

        byte[] latin1 = "{\"x\":\"\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1);
        Map<String, String> h = with(envelopeHeaders("N-2"), "Postbox-Signature",
                Signatures.header(SECRET.getBytes(StandardCharsets.UTF_8), Instant.now().getEpochSecond(), latin1));
        HttpResponse<String> notUtf8 = post(h, latin1);
        assertThat(notUtf8.statusCode()).isEqualTo(400);
        assertThat(notUtf8.body()).contains("payload: the body is not valid UTF-8");

        assertThat(receiver.receive("GET", Map.of(), new byte[0]).status()).isEqualTo(405);
        assertThat(handled).isEmpty();
        assertThat(count(postbox.tables().consumeLog())).isZero();
    }

    @Test
    void anUnsignedReceiverMustBeAskedForExplicitly() throws Exception {
        dev.postbox.inbox.EnvelopeConsumer consumer = new dev.postbox.inbox.EnvelopeConsumer(ds, postbox.inbox(), "open",
                (c, e) -> handled.add(e));
        assertThatThrownBy(() -> WebhookReceiver.builder(consumer).build())
                .isInstanceOf(dev.postbox.common.ValidationException.class).hasMessageStartingWith("webhook.verifier: is required");
        WebhookReceiver open = WebhookReceiver.builder(consumer).allowUnsigned().build();
        WebhookResponse r = open.receive("POST", Map.of("postbox-event-no", List.of("O-1"), "postbox-event-type", List.of("T"),
                "postbox-event-version", List.of("1"), "postbox-aggregate-type", List.of("ORDER"),
                "postbox-aggregate-id", List.of("A1")), "{}".getBytes(StandardCharsets.UTF_8));
        assertThat(r).isEqualTo(new WebhookResponse(200, "ran"));
        assertThat(handled).hasSize(1);
    }
}
