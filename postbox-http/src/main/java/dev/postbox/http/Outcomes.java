package dev.postbox.http;

import dev.postbox.internal.Check;
import dev.postbox.spi.PublishResult;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;

/**
 * What an HTTP answer means for the event: 2xx published; 408, 425, 429 and 5xx retried (honouring
 * {@code Retry-After}); any other status DEAD with the status and the start of the body; a connection
 * or timeout failure retried.
 */
final class Outcomes {

    /** How much of an error body is read and how much of it goes into the failure reason. */
    static final int SNIPPET_BYTES = 1024;
    static final int SNIPPET_CHARS = 200;

    private Outcomes() {
    }

    /** Discards a 2xx body; keeps the first {@value #SNIPPET_BYTES} bytes of any other. */
    static HttpResponse.BodyHandler<String> bodyHandler() {
        return info -> info.statusCode() / 100 == 2 ? HttpResponse.BodySubscribers.replacing("") : new Snippet();
    }

    static PublishResult of(String endpoint, HttpResponse<String> response, Instant now) {
        int status = response.statusCode();
        if (status / 100 == 2) {
            return PublishResult.published();
        }
        String reason = "HTTP " + status + " from endpoint '" + endpoint + "'" + snippet(response.body());
        if (retryable(status)) {
            Duration after = response.headers().firstValue("Retry-After").map(v -> retryAfter(v, now)).orElse(null);
            return after == null ? PublishResult.retry(reason) : PublishResult.retryAfter(reason + " (Retry-After " + after.toSeconds() + " s)", after);
        }
        if (status / 100 == 3) {
            reason += response.headers().firstValue("Location").map(l -> " (redirects are not followed; Location: "
                    + Check.clip(l, SNIPPET_CHARS) + ")").orElse(" (redirects are not followed)");
        }
        return PublishResult.dead(reason);
    }

    static boolean retryable(int status) {
        return status == 408 || status == 425 || status == 429 || status / 100 == 5;
    }

    /** A failed request: every I/O failure (refused, reset, timed out) may go away, so it is retried. */
    static PublishResult failed(String endpoint, Throwable error, Duration timeout) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        if (e instanceof HttpConnectTimeoutException) {
            return PublishResult.retry("endpoint '" + endpoint + "': connect timed out");
        }
        if (e instanceof HttpTimeoutException) {
            return PublishResult.retry("endpoint '" + endpoint + "': no answer within " + timeout);
        }
        if (e instanceof ConnectException) {
            return PublishResult.retry("endpoint '" + endpoint + "' unreachable: " + describe(e));
        }
        if (e instanceof IOException) {
            return PublishResult.retry("endpoint '" + endpoint + "': " + describe(e));
        }
        if (e instanceof IllegalArgumentException) {
            return PublishResult.dead("endpoint '" + endpoint + "': request rejected by the HTTP client: " + describe(e));
        }
        return PublishResult.retry("endpoint '" + endpoint + "': " + describe(e));
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        if (message == null && e.getCause() != null) {
            return e.getClass().getSimpleName() + " (" + describe(e.getCause()) + ")";
        }
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    /**
     * {@code Retry-After} as delay-seconds or an HTTP-date, relative to {@code now}; null when it is
     * neither. A date in the past means "now".
     */
    static Duration retryAfter(String value, Instant now) {
        String v = value.trim();
        if (!v.isEmpty() && v.chars().allMatch(Character::isDigit)) {
            return v.length() > 9 ? Duration.ofSeconds(999_999_999L) : Duration.ofSeconds(Long.parseLong(v));
        }
        try {
            Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            return at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO;
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static String snippet(String body) {
        if (body == null || body.isBlank()) {
            return "";
        }
        return ": " + Check.clip(body.strip().replaceAll("\\s+", " "), SNIPPET_CHARS);
    }

    /** Keeps the first bytes of a body and discards the rest, so a huge error page costs no memory. */
    private static final class Snippet implements HttpResponse.BodySubscriber<String> {
        private final CompletableFuture<String> body = new CompletableFuture<>();
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();

        @Override
        public CompletionStage<String> getBody() {
            return body;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            for (ByteBuffer b : items) {
                int n = Math.min(b.remaining(), SNIPPET_BYTES - kept.size());
                if (n > 0) {
                    byte[] chunk = new byte[n];
                    b.get(chunk);
                    kept.write(chunk, 0, n);
                }
            }
        }

        @Override
        public void onError(Throwable throwable) {
            body.completeExceptionally(throwable);
        }

        @Override
        public void onComplete() {
            body.complete(kept.toString(StandardCharsets.UTF_8));
        }
    }
}
