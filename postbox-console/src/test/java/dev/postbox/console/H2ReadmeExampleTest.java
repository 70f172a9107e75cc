package dev.postbox.console;

import dev.postbox.Postbox;
import dev.postbox.operations.Permission;
import dev.postbox.operations.Role;
import dev.postbox.testing.TestDatabase;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.ServletRegistration;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

import java.net.URI;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's "Operations console" snippets, as written there (but port 0), run on H2. */
class H2ReadmeExampleTest {

    @Test
    void theJdkServerSnippetServesTheConsole() throws Exception {
        try (TestDatabase db = TestDatabase.h2()) {
            Postbox postbox = Postbox.builder(db.dataSource()).source("readme").build();
            postbox.schema().install();
            String anaHash = PasswordHash.create(ConsoleClient.PASSWORD.toCharArray(), PasswordHash.MIN_ITERATIONS);
            String leadHash = anaHash;
            String viewerHash = anaHash;

            // --- README
            BasicAuthenticator users = BasicAuthenticator.builder()
                    .user("ana", anaHash, Role.OPERATOR)          // hashes from PasswordHash.create(password), kept in config
                    .user("lead", leadHash, Role.OPERATOR, Permission.REVEAL_PAYLOAD)
                    .user("viewer", viewerHash, Role.VIEWER)
                    .build();
            ConsoleApi api = ConsoleApi.builder(postbox.operations()).authenticator(users).build();
            ConsoleServer server = ConsoleServer.builder(api).host("127.0.0.1").port(0).start();  // http://127.0.0.1:<port>/postbox/
            // ... server.close(); api.close();
            // --- README end

            try {
                ConsoleClient.Res me = new ConsoleClient(server.uri()).get("lead", "api/me");
                assertThat(me.status()).isEqualTo(200);
                assertThat(me.json().get("permissions")).asList().contains("REVEAL_PAYLOAD");
            } finally {
                server.close();
                api.close();
            }
        }
    }

    /** The servlet snippet in a ServletContextListener, where Servlet containers allow registering servlets. */
    @Test
    void theServletSnippetServesTheConsoleInAContainer() throws Exception {
        try (TestDatabase db = TestDatabase.h2()) {
            Postbox postbox = Postbox.builder(db.dataSource()).source("readme").build();
            postbox.schema().install();
            ConsoleApi api = ConsoleApi.builder(postbox.operations()).authenticator(ConsoleFixture.users()).build();
            Server jetty = new Server();
            ServerConnector connector = new ServerConnector(jetty);
            connector.setHost("127.0.0.1");
            jetty.addConnector(connector);
            ServletContextHandler context = new ServletContextHandler("/");
            context.addEventListener(new ServletContextListener() {
                @Override
                public void contextInitialized(ServletContextEvent event) {
                    var servletContext = event.getServletContext();
                    // --- README
                    ServletRegistration.Dynamic console = servletContext.addServlet("postbox-console", new ConsoleServlet(api));
                    console.addMapping("/postbox/*");
                    // --- README end
                }
            });
            jetty.setHandler(context);
            jetty.start();
            try {
                ConsoleClient client = new ConsoleClient(URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/postbox/"));
                assertThat(client.get(ConsoleFixture.VIEWER, "api/me").status()).isEqualTo(200);
                assertThat(client.get(ConsoleFixture.VIEWER, "").body()).contains("assets/app.js");
                ConsoleClient.Res redirect = client.sendTo("GET", URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/postbox"),
                        java.util.Map.of(), null);
                assertThat(redirect.status()).isEqualTo(308);
                assertThat(redirect.header("Location")).isEqualTo("/postbox/");
            } finally {
                jetty.stop();
                api.close();
            }
        }
    }
}
