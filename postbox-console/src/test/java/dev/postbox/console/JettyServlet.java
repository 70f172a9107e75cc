package dev.postbox.console;

import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import java.net.URI;

/**
 * {@link ConsoleServlet} in a real servlet container: an embedded Jetty 12 (Servlet 6.0, as Spring Boot 3.5's),
 * mapped at {@code /postbox/*} of context {@code /app} on a free loopback port. Jetty refuses an encoded
 * {@code /} in a path by default (Servlet 6's "suspicious" sequences); the console's keys may hold one, so the
 * connector allows it, as README tells users to configure their container.
 */
final class JettyServlet implements ConsoleFixture.Endpoint {

    private final Server server;
    private final URI base;

    JettyServlet(ConsoleApi api) {
        try {
            server = new Server();
            ServerConnector connector = new ServerConnector(server);
            connector.setHost("127.0.0.1");
            connector.setPort(0);
            connector.getConnectionFactory(HttpConnectionFactory.class).getHttpConfiguration()
                    .setUriCompliance(UriCompliance.DEFAULT.with("console keys", UriCompliance.Violation.AMBIGUOUS_PATH_SEPARATOR,
                            UriCompliance.Violation.AMBIGUOUS_PATH_ENCODING));
            server.addConnector(connector);
            ServletContextHandler context = new ServletContextHandler("/app");
            context.addServlet(new ServletHolder("postbox-console", new ConsoleServlet(api)), "/postbox/*");
            context.getServletHandler().setDecodeAmbiguousURIs(true);
            server.setHandler(context);
            server.start();
            base = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/app/postbox/");
        } catch (Exception e) {
            throw new IllegalStateException("cannot start Jetty", e);
        }
    }

    @Override
    public URI base() {
        return base;
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
