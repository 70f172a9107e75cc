package dev.postbox.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.postbox.spi.Envelope;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The chaos sink process: an HTTP server on {@code --port} that appends every delivery to the durable
 * log {@code --log} ({@link DeliveryLog}: fsync'd before the answer) and only then answers 204. What a
 * relay saw acknowledged is therefore on disk, whatever happens to this process afterwards; the log is
 * the history the checker reads.
 */
public final class ChaosSink {

    private ChaosSink() {
    }

    static Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("port", "");
        d.put("log", "");
        return d;
    }

    public static void main(String[] args) throws Exception {
        Options o = ChaosRole.start("sink", args, defaults());
        DeliveryLog log = DeliveryLog.open(Path.of(o.string("log")));
        HttpServer server = bind(o.positiveInt("port"));
        ExecutorService handlers = Executors.newFixedThreadPool(80);
        server.setExecutor(handlers);
        server.createContext("/events", exchange -> {
            try (exchange) {
                handle(exchange, log);
            }
        });
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.stop(0);
            handlers.shutdownNow();
            log.close();
        }, "chaos-sink-stop"));
        System.out.println(ChaosRole.READY);
        System.out.flush();
        handlers.awaitTermination(Long.MAX_VALUE, TimeUnit.DAYS);
    }

    private static void handle(HttpExchange exchange, DeliveryLog log) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String eventNo = exchange.getRequestHeaders().getFirst(Envelope.EVENT_NO);
        DeliveryLog.Delivery d;
        try {
            d = new DeliveryLog.Delivery(System.currentTimeMillis(), eventNo == null ? "" : eventNo, ChaosPayload.parse(body));
        } catch (IllegalArgumentException e) {
            exchange.sendResponseHeaders(400, -1); // not a chaos event: DEAD, and the checker reports it
            return;
        }
        try {
            log.append(d);
        } catch (IOException | RuntimeException e) {
            exchange.sendResponseHeaders(503, -1);
            return;
        }
        exchange.sendResponseHeaders(204, -1);
    }

    /** Binds {@code port}, retrying for a while: the previous sink process may just have been killed. */
    private static HttpServer bind(int port) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            try {
                return HttpServer.create(new InetSocketAddress("127.0.0.1", port), 512);
            } catch (BindException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }
}
