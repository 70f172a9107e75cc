package dev.postbox.http;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** A real JDK HttpServer on an ephemeral loopback port that can be stopped and started again on the same port. */
final class TestServer implements AutoCloseable {

    private final ExecutorService pool = Executors.newFixedThreadPool(16);
    volatile HttpHandler handler;
    private HttpServer server;
    private int port;

    TestServer(HttpHandler handler) throws IOException {
        this.handler = handler;
        bind(0);
    }

    private void bind(int wanted) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), wanted), 200);
        server.createContext("/", exchange -> handler.handle(exchange));
        server.setExecutor(pool);
        server.start();
        port = server.getAddress().getPort();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    int port() {
        return port;
    }

    /** Closes the listening socket and every open connection at once. */
    void stop() {
        server.stop(0);
    }

    /** A new server on the same port. */
    void startAgain() throws Exception {
        for (int attempt = 0; ; attempt++) {
            try {
                bind(port);
                return;
            } catch (BindException e) {
                if (attempt == 50) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
