package dev.postbox.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder on an ephemeral loopback port to a real server that can cut every connection and
 * refuse new ones for a while: a broker outage as the clients see it (connections reset, connects
 * refused), without stopping a service other tests share. Used by the transport modules' outage tests.
 */
public final class TcpProxy implements AutoCloseable {

    private final String targetHost;
    private final int targetPort;
    private final int port;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket server;
    private volatile boolean closed;
    private volatile boolean down;

    public TcpProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = listen(0);
        this.port = server.getLocalPort();
        acceptOn(server);
    }

    /** The loopback port clients connect to. */
    public int port() {
        return port;
    }

    /** Drops every connection and refuses new ones (nothing listens on the port) until {@link #up()}. */
    public synchronized void down() throws IOException {
        down = true;
        server.close();
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }

    /** Listens again on the same port. */
    public synchronized void up() throws IOException {
        if (!closed && down) {
            server = listen(port);
            acceptOn(server);
            down = false;
        }
    }

    /** {@link #down()} now and {@link #up()} after {@code duration}, on a background thread. */
    public void cut(Duration duration) throws IOException {
        down();
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(duration.toMillis());
                up();
            } catch (InterruptedException | IOException e) {
                throw new IllegalStateException("proxy on port " + port + " could not come back up", e);
            }
        }, "tcp-proxy-up-" + port);
        t.setDaemon(true);
        t.start();
    }

    /** Whether the proxy is down (refusing connections). */
    public boolean refusing() {
        return down;
    }

    private static ServerSocket listen(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return s;
    }

    private void acceptOn(ServerSocket listening) {
        Thread t = new Thread(() -> {
            while (!listening.isClosed()) {
                try {
                    Socket client = listening.accept();
                    Socket upstream;
                    try {
                        upstream = new Socket(targetHost, targetPort);
                    } catch (IOException e) {
                        closeQuietly(client);
                        continue;
                    }
                    // registered under the lock down() holds: a connection accepted while down() ran is closed
                    // here instead of surviving the outage unseen
                    synchronized (TcpProxy.this) {
                        if (down || listening.isClosed()) {
                            closeQuietly(client);
                            closeQuietly(upstream);
                            continue;
                        }
                        sockets.add(client);
                        sockets.add(upstream);
                    }
                    pump(client, upstream);
                    pump(upstream, client);
                } catch (IOException e) {
                    return; // closed for an outage or for good
                }
            }
        }, "tcp-proxy-accept-" + port);
        t.setDaemon(true);
        t.start();
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException cut) {
                // cut by an outage or by the other side
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "tcp-proxy-pump-" + port);
        t.setDaemon(true);
        t.start();
    }

    private void closeQuietly(Socket s) {
        sockets.remove(s);
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public synchronized void close() throws IOException {
        closed = true;
        server.close();
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }
}
