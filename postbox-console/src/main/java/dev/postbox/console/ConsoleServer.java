package dev.postbox.console;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.postbox.common.ValidationException;
import dev.postbox.internal.Check;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The console on the JDK's own HTTP server ({@code com.sun.net.httpserver}): no servlet container needed, for
 * a standalone console, a CLI's tests or a demo. {@code ConsoleServer.builder(api).host("127.0.0.1").port(8081)
 * .start()} listens at {@code http://127.0.0.1:8081/postbox/}; port 0 takes a free one ({@link #port()}). A
 * console without authentication ({@link ConsoleApi.Builder#insecureNoAuthentication}) may only listen on a
 * loopback address: anything else is refused at {@link Builder#start()}. Plain HTTP: put TLS in front (a
 * reverse proxy) when it is reached over a network. {@link #close()} stops it; the {@link ConsoleApi} is the
 * caller's to close.
 */
public final class ConsoleServer implements AutoCloseable {

    /** Host the server listens on by default: loopback only. */
    public static final String DEFAULT_HOST = "127.0.0.1";
    /** Threads answering requests by default. */
    public static final int DEFAULT_THREADS = 4;

    private static final Logger log = LoggerFactory.getLogger(ConsoleServer.class);

    private final HttpServer server;
    private final ExecutorService executor;
    private final String mount;
    private final ConsoleApi api;

    private ConsoleServer(ConsoleApi api, HttpServer server, ExecutorService executor, String mount) {
        this.api = api;
        this.server = server;
        this.executor = executor;
        this.mount = mount;
    }

    /** A server for {@code api}, not yet started. */
    public static Builder builder(ConsoleApi api) {
        return new Builder(api);
    }

    /** The port it listens on (the one chosen when 0 was asked for). */
    public int port() {
        return server.getAddress().getPort();
    }

    /** The console's UI, e.g. {@code http://127.0.0.1:8081/postbox/}. */
    public URI uri() {
        InetAddress a = server.getAddress().getAddress();
        String host = a.getHostAddress();
        if (host.indexOf(':') >= 0) {
            host = "[" + host + "]";
        }
        return URI.create("http://" + host + ":" + port() + mount + "/");
    }

    /**
     * The console as a handler for a JDK HTTP server of the caller's, answering under {@code mountPath} (e.g.
     * {@code /console/orders}; create the context at that path): for a process that already serves HTTP, as
     * postbox-server does for each of its sources. A console without authentication still answers only requests
     * from this machine; the server, its threads and TLS are the caller's.
     */
    public static HttpHandler handler(ConsoleApi api, String mountPath) {
        Objects.requireNonNull(api, "api");
        String mount = MountPath.normalize(mountPath);
        return exchange -> serve(api, mount, exchange);
    }

    private static void serve(ConsoleApi api, String mount, HttpExchange exchange) throws IOException {
        try (exchange) {
            String raw = exchange.getRequestURI().getRawPath();
            String rawQuery = exchange.getRequestURI().getRawQuery();
            if (!raw.startsWith(mount) || raw.length() > mount.length() && raw.charAt(mount.length()) != '/') {
                exchange.sendResponseHeaders(404, -1); // a context matches by prefix: /postboxes is not ours
                return;
            }
            String below = raw.substring(mount.length());
            if (below.isEmpty()) {
                exchange.getResponseHeaders().set("Location", mount + "/" + (rawQuery == null ? "" : "?" + rawQuery));
                exchange.sendResponseHeaders(308, -1);
                return;
            }
            InetSocketAddress remote = exchange.getRemoteAddress();
            ConsoleRequest request = new ConsoleRequest(exchange.getRequestMethod(), below,
                    ConsoleRequest.parseQuery(rawQuery), exchange.getRequestHeaders(),
                    api.readBody(exchange.getRequestBody()),
                    remote == null || remote.getAddress() == null ? null : remote.getAddress().getHostAddress());
            ConsoleResponse response = api.handle(request);
            for (Map.Entry<String, String> h : response.headers().entrySet()) {
                exchange.getResponseHeaders().set(h.getKey(), h.getValue());
            }
            byte[] body = response.body();
            boolean head = exchange.getRequestMethod().equals("HEAD");
            exchange.sendResponseHeaders(response.status(), body.length == 0 || head ? -1 : body.length);
            if (body.length > 0 && !head) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        } catch (IOException | RuntimeException e) {
            log.debug("console: request failed while answering", e);
            throw e;
        }
    }

    /** Stops listening; requests in progress get up to a second to finish. */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdown();
        try {
            if (!executor.awaitTermination(1, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** Configures a {@link ConsoleServer}; not thread-safe. */
    public static final class Builder {
        private final ConsoleApi api;
        private String host = DEFAULT_HOST;
        private int port;
        private String path = ConsoleApi.DEFAULT_MOUNT_PATH;
        private int threads = DEFAULT_THREADS;

        private Builder(ConsoleApi api) {
            this.api = Objects.requireNonNull(api, "api");
        }

        /** The address to listen on: an IP literal or a name; default {@value #DEFAULT_HOST}. */
        public Builder host(String host) {
            this.host = Check.required("host", host, 255);
            return this;
        }

        /** The port, 0..65535; default 0 (a free port, see {@link ConsoleServer#port()}). */
        public Builder port(int port) {
            this.port = Check.range("port", port, 0, 65_535);
            return this;
        }

        /** The mount path; default {@value ConsoleApi#DEFAULT_MOUNT_PATH}; {@code /} serves at the root. */
        public Builder path(String path) {
            this.path = MountPath.normalize(path);
            return this;
        }

        /** Threads answering requests, 1..64; default {@value #DEFAULT_THREADS}. */
        public Builder threads(int threads) {
            this.threads = Check.range("threads", threads, 1, 64);
            return this;
        }

        /** Listens and serves; refuses a console without authentication on anything but loopback. */
        public ConsoleServer start() {
            InetAddress address;
            try {
                address = InetAddress.getByName(host);
            } catch (UnknownHostException e) {
                throw new ValidationException("host", "cannot be resolved: " + host);
            }
            if (api.insecure() && !address.isLoopbackAddress()) {
                throw new ValidationException("host", "is " + host + ", which is not a loopback address, and the console"
                        + " has no authentication (insecureNoAuthentication): configure an authenticator to serve it"
                        + " beyond this machine");
            }
            AtomicInteger n = new AtomicInteger();
            ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(1_000), r -> {
                        Thread t = new Thread(r, "postbox-console-http-" + n.incrementAndGet());
                        t.setDaemon(true);
                        return t;
                    });
            executor.allowCoreThreadTimeOut(true);
            HttpServer server;
            try {
                server = HttpServer.create(new InetSocketAddress(address, port), 0);
            } catch (IOException e) {
                executor.shutdown();
                throw new UncheckedIOException("cannot listen on " + host + ":" + port, e);
            }
            ConsoleServer console = new ConsoleServer(api, server, executor, path);
            server.createContext(path.isEmpty() ? "/" : path, handler(api, path));
            server.setExecutor(executor);
            server.start();
            log.info("console: serving {} ({})", console.uri(), api.insecure() ? "NO AUTHENTICATION" : "authenticated");
            return console;
        }
    }
}
