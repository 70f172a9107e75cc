package dev.postbox.console;

import dev.postbox.common.ValidationException;
import dev.postbox.operations.Operations;
import dev.postbox.operations.Operator;
import dev.postbox.operations.PermissionDeniedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The operations console over HTTP, independent of any server: one {@link ConsoleRequest} in, one
 * {@link ConsoleResponse} out. It serves the JSON API over {@link Operations} (documented at
 * {@code GET /api/openapi.json}), and the web UI at {@code /} and {@code /assets/*}, below whatever path it is
 * mounted at ({@value #DEFAULT_MOUNT_PATH} by default; the UI uses relative URLs only). {@link ConsoleServlet}
 * and {@link ConsoleServer} are two adapters; a framework can write its own in a few lines.
 *
 * <p>Every request passes, in this order: authentication ({@link ConsoleAuthenticator}; 401 without valid
 * credentials), the route (404, 405), the body's size ({@link Builder#maxBodyBytes}; 413), for every method
 * but GET the CSRF header {@code X-Postbox-Csrf} with the token of {@code GET /api/me} (403), a read-only
 * console's refusal of changes (403), a JSON content type for a body (415). Errors are JSON
 * {@code {"error", "field", "message"}}: 400 names the field of bad input, 403 a missing permission; a 500 says
 * only an incident id that the server's log line (with the stack trace) repeats. Every response carries the
 * security headers (a Content-Security-Policy without inline script and with {@code frame-ancestors 'none'},
 * {@code X-Content-Type-Options: nosniff}, no caching of API answers). Each action is logged at INFO with
 * its actor and reason (by {@link Operations}; the console adds dry runs and refused bulk runs); payloads are
 * never logged.
 *
 * <p>Bulk actions run on a small pool the console owns ({@link Builder#bulkConcurrency}) and are polled at
 * {@code GET /api/bulk/{runId}}; {@link #close()} stops it. Thread-safe.
 */
public final class ConsoleApi implements AutoCloseable {

    /** Where the console is mounted unless configured otherwise. */
    public static final String DEFAULT_MOUNT_PATH = "/postbox";
    /** Largest request body accepted by default: 64 KiB. */
    public static final int DEFAULT_MAX_BODY_BYTES = 64 * 1024;
    /** Bulk actions that may run at once by default. */
    public static final int DEFAULT_BULK_CONCURRENCY = 2;
    /** How long a finished bulk run stays readable by default, in minutes. */
    public static final int DEFAULT_BULK_KEEP_MINUTES = 60;
    /** Most bulk runs remembered by default. */
    public static final int DEFAULT_MAX_BULK_RUNS = 100;

    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
            + " connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private static final Logger log = LoggerFactory.getLogger(ConsoleApi.class);

    private final ConsoleAuthenticator authenticator;
    private final Operator insecureOperator;
    private final boolean readOnly;
    private final int maxBodyBytes;
    private final Csrf csrf;
    private final BulkRuns bulkRuns;
    private final Routes routes;

    private ConsoleApi(Builder b) {
        this.authenticator = b.authenticator;
        this.insecureOperator = b.insecureOperator;
        this.readOnly = b.readOnly;
        this.maxBodyBytes = b.maxBodyBytes;
        this.csrf = new Csrf(b.csrfSecret);
        this.bulkRuns = new BulkRuns(b.operations, b.bulkConcurrency, b.bulkKeep, b.maxBulkRuns, b.clock);
        this.routes = new Endpoints(b.operations, b.readOnly, csrf, bulkRuns).routes();
        if (insecureOperator != null) {
            log.warn("console: NO AUTHENTICATION: every request from this machine acts as {} (insecure, for"
                    + " development only; requests from other hosts are refused)", insecureOperator.name());
        }
    }

    /** A console over {@code operations}, e.g. {@code postbox.operations()}. */
    public static Builder builder(Operations operations) {
        return new Builder(operations);
    }

    /** Answers {@code request}: authenticates it with the configured {@link ConsoleAuthenticator}, then {@link #handle(ConsoleRequest, Operator)}. */
    public ConsoleResponse handle(ConsoleRequest request) {
        Operator who;
        try {
            if (insecureOperator != null) {
                if (!isLoopback(request.remoteAddress())) {
                    throw ApiError.forbidden("insecure_remote", "this console runs without authentication and"
                            + " answers only requests from this machine");
                }
                who = insecureOperator;
            } else {
                Optional<Operator> found = authenticator.authenticate(request);
                if (found.isEmpty()) {
                    return unauthorized();
                }
                who = found.get();
            }
        } catch (RuntimeException e) {
            return error(e, request);
        }
        return handle(request, who);
    }

    /**
     * Answers {@code request} for {@code operator}, whom the caller has authenticated (a framework's own security,
     * e.g. Spring Security): everything of {@link #handle(ConsoleRequest)} but the authentication.
     */
    public ConsoleResponse handle(ConsoleRequest request, Operator operator) {
        Objects.requireNonNull(operator, "operator");
        try {
            Routes.Match match = routes.match(request.method(), request.path());
            if (request.body().length > maxBodyBytes) {
                throw new ApiError(413, "too_large", "body", "body: must be at most " + maxBodyBytes + " bytes");
            }
            if (!request.method().equals("GET") && !csrf.valid(operator.name(), request.header(Csrf.HEADER).orElse(null))) {
                throw ApiError.forbidden("csrf", "missing or wrong " + Csrf.HEADER + " header: send the csrfToken"
                        + " of GET /api/me with every change");
            }
            if (match.route().changes() && readOnly) {
                throw ApiError.forbidden("read_only", "this console is read-only: nothing can be changed through it");
            }
            if (request.body().length > 0 || request.method().equals("POST")) {
                String type = request.header("Content-Type").orElse("");
                if (!type.toLowerCase(Locale.ROOT).strip().matches("application/json\\s*(;.*)?")) {
                    throw new ApiError(415, "unsupported_media_type", null, "the body must be JSON (Content-Type:"
                            + " application/json)");
                }
            }
            Reply reply = match.route().handler().handle(new Call(request, operator, match.params()));
            return respond(reply, Map.of());
        } catch (RuntimeException e) {
            return error(e, request);
        }
    }

    private ConsoleResponse unauthorized() {
        String challenge = authenticator.challenge();
        Map<String, String> extra = challenge == null ? Map.of() : Map.of("WWW-Authenticate", challenge);
        return respond(body(new ApiError(401, "unauthorized", null, "authentication required")), extra);
    }

    private ConsoleResponse error(RuntimeException e, ConsoleRequest request) {
        if (e instanceof Routes.MethodNotAllowed m) {
            return respond(body(m), Map.of("Allow", String.join(", ", m.allowed)));
        }
        if (e instanceof ApiError a) {
            return respond(body(a), Map.of());
        }
        if (e instanceof ValidationException v) {
            return respond(body(Endpoints.validation(v)), Map.of());
        }
        if (e instanceof PermissionDeniedException p) {
            return respond(body(ApiError.forbidden("forbidden", p.getMessage())), Map.of());
        }
        String incident = Incidents.next();
        log.error("console: {} {} failed (incident {})", request.method(), Views.logText(request.path()), incident, e);
        return respond(body(new ApiError(500, "internal", null, "internal error (incident " + incident
                + "; the server log has the details)")), Map.of());
    }

    private static Reply body(ApiError e) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", e.code);
        if (e.field != null) {
            body.put("field", e.field);
        }
        body.put("message", e.getMessage());
        return Reply.json(e.status, body);
    }

    private static ConsoleResponse respond(Reply reply, Map<String, String> extra) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", reply.contentType());
        headers.put("Cache-Control", reply.cacheControl());
        headers.put("Content-Security-Policy", CSP);
        headers.put("X-Content-Type-Options", "nosniff");
        headers.put("X-Frame-Options", "DENY");
        headers.put("Referrer-Policy", "no-referrer");
        headers.put("Cross-Origin-Opener-Policy", "same-origin");
        headers.put("Cross-Origin-Resource-Policy", "same-origin");
        headers.putAll(extra);
        return new ConsoleResponse(reply.status(), headers, reply.body());
    }

    static boolean isLoopback(String address) {
        if (address == null || address.isBlank()) {
            return false;
        }
        String a = address.strip();
        if (a.startsWith("[") && a.endsWith("]")) {
            a = a.substring(1, a.length() - 1);
        }
        boolean ipv4 = a.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean ipv6 = a.indexOf(':') >= 0 && a.matches("[0-9a-fA-F:.]+(%[\\w.-]+)?");
        if (!ipv4 && !ipv6) {
            return false; // IP literals only: a name is never resolved here
        }
        try {
            return InetAddress.getByName(a).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** Largest request body this console accepts; an adapter reads at most one byte more ({@link #readBody}). */
    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /** Reads a request body for {@link ConsoleRequest}: all of it, but never more than {@link #maxBodyBytes()} + 1 bytes. */
    public byte[] readBody(InputStream in) throws IOException {
        return in.readNBytes(maxBodyBytes + 1);
    }

    /** Whether this console refuses every change. */
    public boolean readOnly() {
        return readOnly;
    }

    /** True when it runs without authentication (development only). */
    boolean insecure() {
        return insecureOperator != null;
    }

    List<Routes.Route> routes() {
        return routes.all();
    }

    /** Stops the bulk-action pool (runs in progress are interrupted; the events they changed stay changed). */
    @Override
    public void close() {
        bulkRuns.close();
    }

    /** Configures a {@link ConsoleApi}; not thread-safe. */
    public static final class Builder {
        private final Operations operations;
        private ConsoleAuthenticator authenticator;
        private Operator insecureOperator;
        private boolean readOnly;
        private int maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
        private int bulkConcurrency = DEFAULT_BULK_CONCURRENCY;
        private Duration bulkKeep = Duration.ofMinutes(DEFAULT_BULK_KEEP_MINUTES);
        private int maxBulkRuns = DEFAULT_MAX_BULK_RUNS;
        private byte[] csrfSecret;
        private Clock clock = Clock.systemUTC();

        private Builder(Operations operations) {
            this.operations = Objects.requireNonNull(operations, "operations");
        }

        /** Who sends each request (required, unless {@link #insecureNoAuthentication}). */
        public Builder authenticator(ConsoleAuthenticator authenticator) {
            this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
            return this;
        }

        /**
         * No authentication, for a developer's machine only: every request acts as {@code operator}, and only
         * requests from a loopback address are answered ({@link ConsoleServer} also refuses to listen on any
         * other). Logged as a warning at start.
         */
        public Builder insecureNoAuthentication(Operator operator) {
            this.insecureOperator = Objects.requireNonNull(operator, "operator");
            return this;
        }

        /**
         * Refuse every change (403), and show the UI without action buttons; default false. Set it together with
         * {@code OperationsConfig.readOnly}, which makes {@link Operations} refuse them too.
         */
        public Builder readOnly(boolean readOnly) {
            this.readOnly = readOnly;
            return this;
        }

        /** Largest request body in bytes (1 KiB .. 1 MiB; default 64 KiB); a longer one is answered 413. */
        public Builder maxBodyBytes(int bytes) {
            this.maxBodyBytes = dev.postbox.internal.Check.range("maxBodyBytes", bytes, 1024, 1024 * 1024);
            return this;
        }

        /** Bulk actions that may run at once (1..16; default 2); one more is answered 429. */
        public Builder bulkConcurrency(int runs) {
            this.bulkConcurrency = dev.postbox.internal.Check.range("bulkConcurrency", runs, 1, 16);
            return this;
        }

        /** How long a finished bulk run stays readable (1 min .. 1 day; default 60 min). */
        public Builder bulkRunsKept(Duration keep) {
            if (keep == null || keep.compareTo(Duration.ofMinutes(1)) < 0 || keep.compareTo(Duration.ofDays(1)) > 0) {
                throw new ValidationException("bulkRunsKept", "must be between 1 minute and 1 day (was " + keep + ")");
            }
            this.bulkKeep = keep;
            return this;
        }

        /** Most bulk runs remembered (more than {@link #bulkConcurrency}, at most 10,000; default 100). */
        public Builder maxBulkRuns(int runs) {
            this.maxBulkRuns = dev.postbox.internal.Check.range("maxBulkRuns", runs, 2, 10_000);
            return this;
        }

        /**
         * The secret CSRF tokens are made with (at least 32 bytes); default random per instance. Give several
         * replicas of one console the same secret so that a token from one is accepted by the others.
         */
        public Builder csrfSecret(byte[] secret) {
            if (secret == null || secret.length < 32) {
                throw new ValidationException("csrfSecret", "must be at least 32 bytes");
            }
            this.csrfSecret = secret.clone();
            return this;
        }

        /** The clock that ages bulk runs; default UTC system clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The console; refuses a configuration without an authenticator unless insecure mode was asked for. */
        public ConsoleApi build() {
            if (authenticator == null && insecureOperator == null) {
                throw new ValidationException("authenticator", "is required: the console exposes and changes events;"
                        + " configure one (e.g. BasicAuthenticator), or, on a developer's machine only,"
                        + " insecureNoAuthentication(operator) with a server bound to loopback");
            }
            if (authenticator != null && insecureOperator != null) {
                throw new ValidationException("authenticator", "is configured together with insecureNoAuthentication;"
                        + " choose one");
            }
            if (maxBulkRuns <= bulkConcurrency) {
                throw new ValidationException("maxBulkRuns", "must be more than bulkConcurrency (" + bulkConcurrency
                        + "), was " + maxBulkRuns);
            }
            if (csrfSecret == null) {
                csrfSecret = new byte[32];
                new SecureRandom().nextBytes(csrfSecret);
            }
            return new ConsoleApi(this);
        }
    }
}
