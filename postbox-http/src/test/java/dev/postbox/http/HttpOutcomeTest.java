package dev.postbox.http;

import com.sun.net.httpserver.HttpExchange;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.Relay;
import dev.postbox.spi.PublishResult;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** How HTTP answers and failures become PUBLISHED, RETRY (with Retry-After) or DEAD. */
class HttpOutcomeTest extends WebhookFixture {

    private static void answer(HttpExchange exchange, int status, String header, String value, String body) throws IOException {
        exchange.getRequestBody().readAllBytes();
        if (header != null) {
            exchange.getResponseHeaders().set(header, value);
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            exchange.getResponseBody().write(bytes);
        }
        exchange.close();
    }

    @Test
    void retryAfterInSecondsIsHonouredByTheRelay() throws Exception {
        server.handler = exchange -> answer(exchange, 429, "Retry-After", "120", "slow down");
        OutboxRecord r = write(event("RA-1", "A1").build());
        HttpPublisher publisher = publisher().build();

        PublishResult result = publishOne(publisher, r);
        assertThat(result.kind()).isEqualTo(PublishResult.Kind.RETRY);
        assertThat(result.retryAfter()).isEqualTo(Duration.ofSeconds(120));
        assertThat(result.reason()).startsWith("HTTP 429 from endpoint 'WEBHOOK': slow down");

        try (Relay relay = postbox.relay(publisher).instanceId("r1").build()) {
            assertThat(relay.runOnce().failed()).isEqualTo(1);
        }
        OutboxRecord failed = postbox.queries().outbox().byEventNo("RA-1").orElseThrow();
        assertThat(failed.status()).isEqualTo(OutboxStatus.FAILED);
        assertThat(failed.nextRetryTime()).as("no earlier than Retry-After").isAfterOrEqualTo(START.plusSeconds(120));
    }

    @Test
    void retryAfterAsAnHttpDateIsHonoured() throws Exception {
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(START.plusSeconds(90).atOffset(ZoneOffset.UTC));
        server.handler = exchange -> answer(exchange, 503, "Retry-After", date, "");
        PublishResult result = publishOne(publisher().clock(clock).build(), write(event("RA-2", "A1").build()));
        assertThat(result.kind()).isEqualTo(PublishResult.Kind.RETRY);
        assertThat(result.retryAfter()).as("an HTTP-date has whole seconds")
                .isEqualTo(Duration.between(START, START.plusSeconds(90).truncatedTo(java.time.temporal.ChronoUnit.SECONDS)));
        assertThat(Outcomes.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", START)).as("a past date").isZero();
        assertThat(Outcomes.retryAfter("soon", START)).isNull();
    }

    @Test
    void serverErrorsAndTimeoutsAreRetried() throws Exception {
        OutboxRecord r = write(event("R-1", "A1").build());
        server.handler = exchange -> answer(exchange, 503, null, null, "maintenance");
        PublishResult unavailable = publishOne(publisher().build(), r);
        assertThat(unavailable.kind()).isEqualTo(PublishResult.Kind.RETRY);
        assertThat(unavailable.retryAfter()).isNull();
        assertThat(unavailable.reason()).isEqualTo("HTTP 503 from endpoint 'WEBHOOK': maintenance");

        server.handler = exchange -> answer(exchange, 408, null, null, "");
        assertThat(publishOne(publisher().build(), r).kind()).isEqualTo(PublishResult.Kind.RETRY);

        server.handler = exchange -> {
            sleep(2_000);
            answer(exchange, 200, null, null, "");
        };
        PublishResult slow = publishOne(publisher().requestTimeout(Duration.ofMillis(300)).build(), r);
        assertThat(slow).isEqualTo(PublishResult.retry("endpoint 'WEBHOOK': no answer within PT0.3S"));
    }

    @Test
    void aRefusedConnectionIsRetried() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        HttpPublisher publisher = HttpPublisher.builder().endpoint("WEBHOOK", URI.create("http://127.0.0.1:" + closedPort + "/x"))
                .secret(SECRET).build();
        PublishResult refused = publishOne(publisher, write(event("R-2", "A1").build()));
        assertThat(refused.kind()).isEqualTo(PublishResult.Kind.RETRY);
        assertThat(refused.reason()).startsWith("endpoint 'WEBHOOK' unreachable: ConnectException");
    }

    @Test
    void aClientErrorIsDeadWithItsStatusAndTheStartOfTheBody() throws Exception {
        server.handler = exchange -> answer(exchange, 422, null, null, "invalid amount\n" + "x".repeat(5_000));
        OutboxRecord r = write(event("D-1", "A1").build());
        HttpPublisher publisher = publisher().build();
        PublishResult result = publishOne(publisher, r);
        assertThat(result.kind()).isEqualTo(PublishResult.Kind.DEAD);
        assertThat(result.reason()).startsWith("HTTP 422 from endpoint 'WEBHOOK': invalid amount xxx").hasSizeLessThan(260);

        try (Relay relay = postbox.relay(publisher).instanceId("r1").build()) {
            relay.runOnce();
        }
        OutboxRecord dead = postbox.queries().outbox().byEventNo("D-1").orElseThrow();
        assertThat(dead.status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(dead.failReason()).startsWith("HTTP 422 from endpoint 'WEBHOOK'");

        server.handler = exchange -> answer(exchange, 301, "Location", "https://elsewhere.example/hooks", "");
        assertThat(publishOne(publisher, r).reason())
                .isEqualTo("HTTP 301 from endpoint 'WEBHOOK' (redirects are not followed; Location: https://elsewhere.example/hooks)");
    }

    @Test
    void anEventWithoutAnEndpointIsDeadWithTheReason() throws Exception {
        write(event("U-1", "A1").channel("MQ").topic("nowhere").build());
        try (Relay relay = postbox.relay(publisher().build()).instanceId("r1").build()) {
            relay.runOnce();
        }
        OutboxRecord dead = postbox.queries().outbox().byEventNo("U-1").orElseThrow();
        assertThat(dead.status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(dead.failReason()).isEqualTo("no HTTP endpoint configured for topic 'nowhere' or channel 'MQ'");
        assertThat(requests).isEmpty();
    }

    @Test
    void anEventHeaderThatHttpReservesIsDead() throws Exception {
        OutboxRecord r = write(event("H-1", "A1").header("Host", "evil.example").build());
        assertThat(publishOne(publisher().build(), r))
                .isEqualTo(PublishResult.dead("event header 'Host' is reserved by HTTP or by the webhook format"));
    }

    @Test
    void aFailingHandlerIsAnswered500AndTheEventComesAgain() throws Exception {
        OutboxRecord r = write(event("F-1", "A1").header("x-seq", "1").build());
        HttpPublisher publisher = publisher().build();
        handlerFailure = new IllegalStateException("ledger locked");

        PublishResult failed = publishOne(publisher, r);
        assertThat(failed).isEqualTo(PublishResult.retry("HTTP 500 from endpoint 'WEBHOOK': handler failed: IllegalStateException"));
        assertThat(count("delivered")).isZero();
        assertThat(count(postbox.tables().consumeLog())).as("nothing committed").isZero();

        handlerFailure = null;
        assertThat(publishOne(publisher, r)).isEqualTo(PublishResult.published());
        assertThat(count("delivered")).isEqualTo(1);
    }

    @Test
    void noMoreThanMaxInFlightRequestsRunAtOnceAndPublishDoesNotBlock() throws Exception {
        AtomicInteger now = new AtomicInteger();
        AtomicInteger max = new AtomicInteger();
        server.handler = exchange -> {
            max.accumulateAndGet(now.incrementAndGet(), Math::max);
            sleep(100);
            now.decrementAndGet();
            answer(exchange, 204, null, null, "");
        };
        List<OutboxRecord> records = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            records.add(write(event("C-" + i, "A" + i).build()));
        }
        HttpPublisher publisher = publisher().maxInFlight(4).build();
        long started = System.nanoTime();
        List<CompletionStage<PublishResult>> stages = publisher.publish(records);
        long returnedMs = (System.nanoTime() - started) / 1_000_000;
        assertThat(returnedMs).as("publish() only starts the requests").isLessThan(500);
        assertThat(publisher.inFlight()).isLessThanOrEqualTo(4);
        for (CompletionStage<PublishResult> s : stages) {
            assertThat(s.toCompletableFuture().get(30, TimeUnit.SECONDS)).isEqualTo(PublishResult.published());
        }
        assertThat(max.get()).isBetween(2, 4);
        assertThat(publisher.inFlight()).isZero();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
