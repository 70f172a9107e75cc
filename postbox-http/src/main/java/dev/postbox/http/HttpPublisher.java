package dev.postbox.http;

import dev.postbox.common.ValidationException;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.Envelope;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Publishes each outbox event as one signed HTTP {@code POST} of its JSON payload, with the JDK's
 * {@link HttpClient}. Built by {@link #builder()}:
 * <pre>{@code
 * HttpPublisher webhooks = HttpPublisher.builder()
 *         .endpoint("billing", URI.create("https://billing.example.com/postbox"))
 *         .route("order.event", "billing")          // topic order.event goes to endpoint billing
 *         .secret(System.getenv("WEBHOOK_SECRET"))  // signs every request (Postbox-Signature)
 *         .build();
 * postbox.relay(webhooks).start();
 * }</pre>
 * <b>Routing.</b> An event goes to the endpoint {@linkplain Builder#route mapped} to its topic; without a
 * mapping, to the endpoint named like its topic; without one, to the endpoint named like its
 * {@code publish_channel} (a catch-all for a channel). No endpoint found: DEAD, never retried.
 * <p>
 * <b>Request.</b> Body = the payload, byte for byte ({@code Content-Type: application/json; charset=utf-8});
 * {@code Idempotency-Key} = the event number; the envelope's {@code Postbox-*} fields, {@code traceparent}
 * and the event's own headers as HTTP headers, with {@link WebhookHeaders#OWN_HEADERS} naming the latter;
 * values that are not plain ASCII as RFC 8187 {@code UTF-8''...}; {@code Postbox-Signature} when a secret
 * is set.
 * <p>
 * <b>Outcome.</b> 2xx: published. 408, 425, 429, 5xx: retried, no earlier than {@code Retry-After}
 * (seconds or HTTP-date). Any other status, including 3xx (redirects are not followed): DEAD with the
 * status and the start of the body. Refused, reset or timed-out connections: retried; the client opens
 * new connections by itself when the endpoint is back.
 * <p>
 * The whole batch is put in flight at once, at most {@link Builder#maxInFlight} requests concurrently
 * (the rest wait for a free slot without blocking the caller). Immutable and thread-safe.
 * <p>
 * <b>Order.</b> Within one call, the events of one aggregate (type and id) are sent one after the other:
 * the next request only once the previous one was answered 2xx; after a failure the rest of that
 * aggregate's events in the call are not sent ({@code retry("not sent: ...")}, which the relay holds, not
 * counting an attempt). Different aggregates go in parallel. So the {@linkplain Publisher#orderLane order
 * lane} is the endpoint, and the relay hands over a whole batch in one call instead of one wave per event
 * of the longest run. The call's send timeout then covers the whole batch: keep {@code batchSize} times
 * the endpoint's response time divided by {@link Builder#maxInFlight} well below the relay's send timeout.
 */
public final class HttpPublisher implements Publisher {

    /** Default of {@link Builder#maxInFlight}. */
    public static final int DEFAULT_MAX_IN_FLIGHT = 32;
    /** Default of {@link Builder#requestTimeout}: the relay's default send timeout. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /** Default of {@link Builder#connectTimeout}. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** Headers an event may not carry: set by the HTTP client or by this publisher. */
    static final Set<String> RESERVED = Set.of("connection", "content-length", "content-type", "expect", "host",
            "upgrade", "transfer-encoding", "te", "trailer", "keep-alive", "idempotency-key");

    private static final Logger log = LoggerFactory.getLogger(HttpPublisher.class);

    private final Map<String, URI> endpoints;
    private final Map<String, String> routes;
    private final byte[] secret;
    private final Duration requestTimeout;
    private final Clock clock;
    private final HttpClient client;
    private final InFlight inFlight;

    private HttpPublisher(Builder b) {
        this.endpoints = Map.copyOf(b.endpoints);
        this.routes = Map.copyOf(b.routes);
        this.secret = b.secret == null ? null : b.secret.getBytes(StandardCharsets.UTF_8);
        this.requestTimeout = b.requestTimeout;
        this.clock = b.clock;
        // Runnable::run: the client's dependent tasks (reading a response, completing its stage, starting the
        // next request of the aggregate or from the queue) run on its own selector thread instead of hopping to
        // a cached thread pool; none of them blocks. Measured: about a quarter less CPU per request.
        this.client = b.client != null ? b.client : HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(b.connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .executor(Runnable::run)
                .build();
        this.inFlight = new InFlight(b.maxInFlight);
    }

    /** A new builder; not thread-safe. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
        List<CompletionStage<PublishResult>> out = new ArrayList<>(records.size());
        Map<List<String>, Previous> last = new HashMap<>(); // each aggregate's latest event in this call
        for (OutboxRecord r : records) {
            List<String> aggregate = Arrays.asList(r.aggregateType(), r.aggregateId());
            Previous previous = last.get(aggregate);
            CompletableFuture<PublishResult> stage = previous == null ? sendSafely(r) : after(previous, r);
            last.put(aggregate, new Previous(r.eventNo(), stage));
            out.add(stage);
        }
        return out;
    }

    /** The endpoint: one request per event, an aggregate's next one only after the previous one's 2xx. */
    @Override
    public Object orderLane(OutboxRecord event) {
        return endpointName(event);
    }

    /** HTTP, the endpoint's name. */
    @Override
    public dev.postbox.spi.Destination destination(OutboxRecord event) {
        return new dev.postbox.spi.Destination("http", endpointName(event));
    }

    /** The latest event of an aggregate in a call, and its outcome. */
    private record Previous(String eventNo, CompletableFuture<PublishResult> outcome) {
    }

    /** Sends {@code r} once {@code previous} was published; otherwise reports it not sent. */
    private CompletableFuture<PublishResult> after(Previous previous, OutboxRecord r) {
        return previous.outcome()
                .handle((p, e) -> e == null && p != null && p.kind() == PublishResult.Kind.PUBLISHED)
                .thenCompose(published -> published ? sendSafely(r)
                        : CompletableFuture.completedFuture(PublishResult.retry("not sent: event " + previous.eventNo()
                                + " of its aggregate, before it in the same batch, was not published")));
    }

    private CompletableFuture<PublishResult> sendSafely(OutboxRecord r) {
        try {
            return send(r);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e); // this event only; the relay's classifier decides
        }
    }

    private CompletableFuture<PublishResult> send(OutboxRecord r) {
        String name = endpointName(r);
        if (name == null) {
            return CompletableFuture.completedFuture(PublishResult.dead("no HTTP endpoint configured for topic '"
                    + r.topic() + "' or channel '" + r.channel() + "'"));
        }
        Envelope envelope = Envelope.of(r);
        String problem = unsendableHeader(envelope);
        if (problem != null) {
            return CompletableFuture.completedFuture(PublishResult.dead(problem));
        }
        URI uri = endpoints.get(name);
        byte[] body = envelope.payload().getBytes(StandardCharsets.UTF_8);
        return inFlight.submit(() -> client.sendAsync(request(uri, envelope, body), Outcomes.bodyHandler()))
                .handle((response, error) -> error == null ? Outcomes.of(name, response, clock.instant())
                        : Outcomes.failed(name, error, requestTimeout));
    }

    /** The endpoint of an event, or null: the topic's mapping, the endpoint named like the topic, then like the channel. */
    String endpointName(OutboxRecord r) {
        if (r.topic() != null) {
            String mapped = routes.get(r.topic());
            if (mapped != null) {
                return mapped;
            }
            if (endpoints.containsKey(r.topic())) {
                return r.topic();
            }
        }
        return r.channel() != null && endpoints.containsKey(r.channel()) ? r.channel() : null;
    }

    private static String unsendableHeader(Envelope e) {
        for (String name : e.headers().keySet()) {
            if (!HeaderValues.validName(name)) {
                return "event header name '" + name + "' is not a valid HTTP header name";
            }
            if (RESERVED.contains(name.toLowerCase(Locale.ROOT))) {
                return "event header '" + name + "' is reserved by HTTP or by the webhook format";
            }
        }
        return null;
    }

    /** Built when the request is started (not when queued), so that the signature's time is fresh. */
    private HttpRequest request(URI uri, Envelope envelope, byte[] body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri)
                .timeout(requestTimeout)
                .header("Content-Type", WebhookHeaders.JSON_UTF8)
                .header(WebhookHeaders.IDEMPOTENCY_KEY, HeaderValues.encode(envelope.eventNo()))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        Map<String, String> headers = new LinkedHashMap<>(envelope.toHeaders());
        StringBuilder own = new StringBuilder();
        for (String name : envelope.headers().keySet()) {
            own.append(own.length() == 0 ? "" : ",").append(name.toLowerCase(Locale.ROOT));
        }
        if (own.length() > 0) {
            headers.put(WebhookHeaders.OWN_HEADERS, own.toString());
        }
        headers.forEach((name, value) -> b.header(name, HeaderValues.encode(value)));
        if (secret != null) {
            b.header(WebhookHeaders.SIGNATURE, Signatures.header(secret, clock.instant().getEpochSecond(), body));
        }
        return b.build();
    }

    /** Requests started and not answered yet (for metrics and tests). */
    public int inFlight() {
        return inFlight.running();
    }

    /** Settings of an {@link HttpPublisher}, validated by {@link #build()}. Not thread-safe. */
    public static final class Builder {
        private final Map<String, URI> endpoints = new LinkedHashMap<>();
        private final Map<String, String> routes = new LinkedHashMap<>();
        private String secret;
        private int maxInFlight = DEFAULT_MAX_IN_FLIGHT;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Clock clock = Clock.systemUTC();
        private HttpClient client;

        private Builder() {
        }

        /** An endpoint: events routed to {@code name} are posted to {@code url} (absolute {@code http} or {@code https}). */
        public Builder endpoint(String name, URI url) {
            if (name == null || name.isBlank()) {
                throw new ValidationException("http.endpoint", "a name is required");
            }
            if (url == null || !url.isAbsolute() || url.getHost() == null
                    || !("http".equalsIgnoreCase(url.getScheme()) || "https".equalsIgnoreCase(url.getScheme()))) {
                throw new ValidationException("http.endpoint", "endpoint '" + name
                        + "' needs an absolute http or https URL with a host (was " + url + ")");
            }
            if (endpoints.putIfAbsent(name, url) != null) {
                throw new ValidationException("http.endpoint", "endpoint '" + name + "' is configured twice");
            }
            return this;
        }

        /** Events of {@code topic} go to the endpoint named {@code endpoint} (configured by {@link #endpoint}, in any order). */
        public Builder route(String topic, String endpoint) {
            if (topic == null || topic.isBlank()) {
                throw new ValidationException("http.route", "a topic is required");
            }
            if (endpoint == null || endpoint.isBlank()) {
                throw new ValidationException("http.route", "topic '" + topic + "' needs an endpoint name");
            }
            routes.put(topic, endpoint);
            return this;
        }

        /**
         * The shared secret that signs every request ({@code Postbox-Signature}); the receiver verifies it
         * with {@link WebhookVerifier}. Optional but recommended: without it anyone who can reach the
         * endpoint can forge events. Default none.
         */
        public Builder secret(String secret) {
            if (secret == null || secret.isBlank()) {
                throw new ValidationException("http.secret", "must not be blank");
            }
            this.secret = secret;
            return this;
        }

        /** Requests at once, 1..10,000 (default {@value #DEFAULT_MAX_IN_FLIGHT}); more wait for a free slot. */
        public Builder maxInFlight(int maxInFlight) {
            if (maxInFlight < 1 || maxInFlight > 10_000) {
                throw new ValidationException("http.maxInFlight", "must be between 1 and 10000 (was " + maxInFlight + ")");
            }
            this.maxInFlight = maxInFlight;
            return this;
        }

        /** Longest wait for the answer to one request once sent (default 10 s); then retried. */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = positive("http.requestTimeout", requestTimeout);
            return this;
        }

        /** Longest wait for a connection (default 5 s); ignored with {@link #httpClient}. */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = positive("http.connectTimeout", connectTimeout);
            return this;
        }

        /** The clock of the signature's timestamp and of {@code Retry-After} dates (default UTC system clock). */
        public Builder clock(Clock clock) {
            if (clock == null) {
                throw new ValidationException("http.clock", "must not be null");
            }
            this.clock = clock;
            return this;
        }

        /**
         * A client of your own (TLS, proxy, authenticator, HTTP/2); default: HTTP/1.1, no redirects,
         * {@link #connectTimeout}, and its work done on its own selector thread (no executor: the
         * publisher's steps never block; only a new connection's host name look-up may, which the JVM caches).
         * It should not follow redirects: a redirected POST may lose its body.
         */
        public Builder httpClient(HttpClient client) {
            if (client == null) {
                throw new ValidationException("http.httpClient", "must not be null");
            }
            this.client = client;
            return this;
        }

        /** Validates the settings and builds the publisher. */
        public HttpPublisher build() {
            if (endpoints.isEmpty()) {
                throw new ValidationException("http.endpoint", "at least one endpoint is required");
            }
            routes.forEach((topic, endpoint) -> {
                if (!endpoints.containsKey(endpoint)) {
                    throw new ValidationException("http.route", "topic '" + topic + "' is routed to endpoint '"
                            + endpoint + "', which is not configured (known: " + endpoints.keySet() + ")");
                }
            });
            if (secret == null) {
                log.warn("HTTP publisher without a secret: requests are not signed (set secret(...) and verify with WebhookVerifier)");
            } else if (secret.length() < 16) {
                log.warn("HTTP publisher secret is only {} characters; use at least 32 random characters", secret.length());
            }
            return new HttpPublisher(this);
        }

        private static Duration positive(String setting, Duration d) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new ValidationException(setting, "must be positive (was " + d + ")");
            }
            return d;
        }
    }
}
