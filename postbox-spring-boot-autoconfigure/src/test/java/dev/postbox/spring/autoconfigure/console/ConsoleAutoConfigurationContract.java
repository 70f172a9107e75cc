package dev.postbox.spring.autoconfigure.console;

import dev.postbox.console.ConsoleApi;
import dev.postbox.console.PasswordHash;
import dev.postbox.operations.PayloadRedactor;
import dev.postbox.spring.autoconfigure.BootLine;
import dev.postbox.spring.autoconfigure.PostboxAutoConfiguration;
import dev.postbox.spring.autoconfigure.metrics.ObservedApp;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.boot.web.servlet.ServletRegistrationBean;

import javax.sql.DataSource;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console as the starter serves it, in a real Spring application on a real embedded Tomcat and a real database
 * (bound per database; run on Boot 3.5 here and on Boot 4.0 in boot-4.0/): off by default; with the built-in users
 * (Spring Security hidden from the class path): 401, a viewer's 403, an operator's retry, reveal only with the grant,
 * CSRF, read-only; with Spring Security: the application's users and their authorities, anonymous 401 and the
 * login redirect, Spring's CSRF not in the way, Boot's default chain still guarding the rest; refused start-ups.
 */
abstract class ConsoleAutoConfigurationContract {

    static final String PASSWORD = "s3cret-for-tests";
    static final String EVENT = "/postbox/api/events/outbox/ORDER_CREATED%3AORD-1";
    /** Cheap hashes: the tests check who may do what, not PBKDF2's cost. */
    static final String HASH = PasswordHash.create(PASSWORD.toCharArray(), PasswordHash.MIN_ITERATIONS);
    static final String NO_SECURITY = "org.springframework.security";

    protected TestDatabase db;

    protected abstract TestDatabase database();

    @BeforeEach
    void open() {
        db = database();
    }

    @AfterEach
    void close() {
        db.close();
    }

    /** A servlet web application on a free port with Postbox, its console auto-configuration and {@code db}. */
    WebApplicationContextRunner app() {
        DataSource ds = db.dataSource();
        return new WebApplicationContextRunner(BootLine::servletWebServerContext)
                .withConfiguration(AutoConfigurations.of(BootLine.SERVLET_WEB_SERVER, PostboxAutoConfiguration.class,
                        PostboxConsoleAutoConfiguration.class))
                .withBean(DataSource.class, () -> ds)
                .withBean(DataSourceTransactionManager.class, () -> new DataSourceTransactionManager(ds))
                .withPropertyValues("server.port=0", "spring.application.name=console-app", "postbox.schema.mode=always",
                        "postbox.relay.poll-interval-max=200ms", "postbox.worker.enabled=false");
    }

    /** {@link #app()} without Spring Security on the class path, with a viewer, an operator and an operator who may reveal. */
    WebApplicationContextRunner withUsers() {
        return app().withClassLoader(new FilteredClassLoader(NO_SECURITY)).withPropertyValues(
                "postbox.console.enabled=true",
                "postbox.console.users[0].name=vera", "postbox.console.users[0].password-hash=" + HASH,
                "postbox.console.users[0].roles=VIEWER",
                "postbox.console.users[1].name=otto", "postbox.console.users[1].password-hash=" + HASH,
                "postbox.console.users[1].roles=OPERATOR",
                "postbox.console.users[2].name=rita", "postbox.console.users[2].password-hash=" + HASH,
                "postbox.console.users[2].roles=OPERATOR", "postbox.console.users[2].reveal-payload=true");
    }

    /** ORDER_CREATED:ORD-1 on a channel nothing routes: the running relay makes it DEAD. */
    static void deadEvent(ApplicationContext context, Http http, String user) {
        ObservedApp.write(context, "ORDER_CREATED:ORD-1", "NOWHERE");
        ObservedApp.await("ORDER_CREATED:ORD-1 is DEAD", () -> http.get(EVENT, user, PASSWORD).body()
                .contains("\"status\":\"DEAD\""), () -> http.get(EVENT, user, PASSWORD).body());
    }

    static String reason(String why) {
        return "{\"reason\":\"" + why + "\"}";
    }

    @Test
    final void nothingIsExposedUnlessEnabled() {
        app().withClassLoader(new FilteredClassLoader(NO_SECURITY)).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(ConsoleApi.class);
            Http http = new Http(BootLine.port(context.getSourceApplicationContext()));
            assertThat(http.get("/postbox/", null, null).statusCode()).isEqualTo(404);
            assertThat(http.get("/postbox/api/me", "otto", PASSWORD).statusCode()).isEqualTo(404);
        });
    }

    @Test
    final void theBuiltInUsersLogInAndEachMayDoWhatItsRoleAllows() {
        withUsers().run(context -> {
            assertThat(context).hasNotFailed();
            Http http = new Http(BootLine.port(context.getSourceApplicationContext()));
            HttpResponse<String> anonymous = http.get("/postbox/api/me", null, null);
            assertThat(anonymous.statusCode()).isEqualTo(401);
            assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Basic"));
            assertThat(http.get("/postbox/api/me", "otto", "wrong").statusCode()).isEqualTo(401);
            assertThat(http.get("/postbox/", "vera", PASSWORD).body()).contains("Postbox console");
            assertThat(http.get("/postbox/api/me", "vera", PASSWORD).body()).contains("\"name\":\"vera\"");

            deadEvent(context, http, "vera");
            HttpResponse<String> viewerRetry = http.post(EVENT + "/retry", "vera", PASSWORD,
                    http.csrf("/postbox", "vera", PASSWORD), reason("viewer tries"));
            assertThat(viewerRetry.statusCode()).as(viewerRetry.body()).isEqualTo(403);
            String ottoCsrf = http.csrf("/postbox", "otto", PASSWORD);
            HttpResponse<String> noCsrf = http.post(EVENT + "/retry", "otto", PASSWORD, null, reason("no token"));
            assertThat(noCsrf.statusCode()).isEqualTo(403);
            assertThat(noCsrf.body()).contains("\"error\":\"csrf\"");
            HttpResponse<String> otherUsersCsrf = http.post(EVENT + "/retry", "otto", PASSWORD,
                    http.csrf("/postbox", "vera", PASSWORD), reason("vera's token"));
            assertThat(otherUsersCsrf.statusCode()).isEqualTo(403);
            assertThat(http.post(EVENT + "/payload", "otto", PASSWORD, ottoCsrf, reason("curious")).statusCode())
                    .as("an operator may not reveal").isEqualTo(403);
            HttpResponse<String> reveal = http.post(EVENT + "/payload", "rita", PASSWORD,
                    http.csrf("/postbox", "rita", PASSWORD), reason("customer asks"));
            assertThat(reveal.statusCode()).as(reveal.body()).isEqualTo(200);
            assertThat(reveal.body()).contains("ORDER_CREATED:ORD-1");
            HttpResponse<String> retry = http.post(EVENT + "/retry", "otto", PASSWORD, ottoCsrf, reason("route fixed"));
            assertThat(retry.statusCode()).as(retry.body()).isEqualTo(200);
            assertThat(retry.body()).contains("PENDING");
            HttpResponse<String> audit = http.get("/postbox/api/audit", "vera", PASSWORD);
            assertThat(audit.body()).contains("\"actor\":\"otto\"").contains("route fixed").contains("\"actor\":\"rita\"");
        });
    }

    @Test
    final void aReadOnlyConsoleRefusesChangesButShowsEverything() {
        withUsers().withPropertyValues("postbox.console.read-only=true").run(context -> {
            Http http = new Http(BootLine.port(context.getSourceApplicationContext()));
            deadEvent(context, http, "otto");
            assertThat(http.get("/postbox/api/me", "otto", PASSWORD).body()).contains("\"readOnly\":true");
            HttpResponse<String> retry = http.post(EVENT + "/retry", "otto", PASSWORD,
                    http.csrf("/postbox", "otto", PASSWORD), reason("read-only"));
            assertThat(retry.statusCode()).isEqualTo(403);
            assertThat(retry.body()).contains("read_only");
            assertThat(http.get(EVENT, "otto", PASSWORD).body()).contains("\"status\":\"DEAD\"");
        });
    }

    @Test
    final void anotherPathAndThePayloadRedactorOfTheApplication() {
        withUsers().withPropertyValues("postbox.console.path=/ops/outbox")
                .withBean(PayloadRedactor.class, () -> (kind, type, payload) -> "{\"redacted\":true}")
                .run(context -> {
                    Http http = new Http(BootLine.port(context.getSourceApplicationContext()));
                    assertThat(http.get("/postbox/api/me", "rita", PASSWORD).statusCode()).isEqualTo(404);
                    assertThat(http.get("/ops/outbox/api/me", "rita", PASSWORD).statusCode()).isEqualTo(200);
                    ObservedApp.write(context, "ORDER_CREATED:ORD-1", "NOWHERE");
                    String event = "/ops/outbox/api/events/outbox/ORDER_CREATED%3AORD-1";
                    ObservedApp.await("DEAD", () -> http.get(event, "rita", PASSWORD).body().contains("\"DEAD\""),
                            () -> http.get(event, "rita", PASSWORD).body());
                    HttpResponse<String> reveal = http.post(event + "/payload", "rita", PASSWORD,
                            http.csrf("/ops/outbox", "rita", PASSWORD), reason("check the redaction"));
                    assertThat(reveal.body()).contains("redacted").doesNotContain("\"no\"");
                });
    }

    @Test
    final void withoutSpringSecurityOrUsersTheStartUpIsRefusedNamingTheProperty() {
        app().withClassLoader(new FilteredClassLoader(NO_SECURITY)).withPropertyValues("postbox.console.enabled=true")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageStartingWith("postbox.console.users: is required"));
    }

    @Test
    final void insecureModeOnlyOnLoopback() {
        app().withClassLoader(new FilteredClassLoader(NO_SECURITY))
                .withPropertyValues("postbox.console.enabled=true", "postbox.console.insecure-no-auth=true")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("postbox.console.insecure-no-auth: needs the server bound to loopback"));
        app().withClassLoader(new FilteredClassLoader(NO_SECURITY))
                .withPropertyValues("postbox.console.enabled=true", "postbox.console.insecure-no-auth=true",
                        "server.address=0.0.0.0")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("it is 0.0.0.0"));
        app().withClassLoader(new FilteredClassLoader(NO_SECURITY))
                .withPropertyValues("postbox.console.enabled=true", "postbox.console.insecure-no-auth=true",
                        "server.address=127.0.0.1")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Http http = new Http(BootLine.port(context.getSourceApplicationContext()));
                    assertThat(http.get("/postbox/api/me", null, null).body()).contains("\"name\":\"developer\"");
                });
    }

    @Test
    final void badValuesFailTheStartUpNamingTheProperty() {
        withUsers().withPropertyValues("postbox.console.overview-ttl=0s").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageStartingWith("postbox.console.overview-ttl: must be between"));
        withUsers().withPropertyValues("postbox.console.users[1].password-hash=plain").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageStartingWith("postbox.console.users[1].password-hash:"));
        withUsers().withPropertyValues("postbox.console.users[0].roles=").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageStartingWith("postbox.console.users[0].roles:"));
        withUsers().withPropertyValues("postbox.console.path=postbox").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageStartingWith("postbox.console.path:"));
        withUsers().withPropertyValues("postbox.console.csrf-secret=short").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageStartingWith("postbox.console.csrf-secret:"));
    }

    /** The application's own users, as Spring Security knows them, with the console's authorities or none. */
    static UserDetailsService applicationUsers() {
        String encoded = "{noop}" + PASSWORD;
        return new InMemoryUserDetailsManager(
                User.withUsername("vera").password(encoded).authorities("ROLE_POSTBOX_VIEWER").build(),
                User.withUsername("otto").password(encoded).authorities("ROLE_POSTBOX_OPERATOR").build(),
                User.withUsername("rita").password(encoded).authorities("ROLE_POSTBOX_OPERATOR", "POSTBOX_REVEAL_PAYLOAD").build(),
                User.withUsername("ada").password(encoded).authorities("ROLE_POSTBOX_ADMIN").build(),
                User.withUsername("sam").password(encoded).authorities("ROLE_USER").build());
    }

    WebApplicationContextRunner withSpringSecurity() {
        return app().withConfiguration(AutoConfigurations.of(BootLine.SECURITY))
                .withBean(UserDetailsService.class, ConsoleAutoConfigurationContract::applicationUsers)
                .withBean("helloServlet", ServletRegistrationBean.class, () -> new ServletRegistrationBean<>(new Hello(), "/hello"))
                .withPropertyValues("postbox.console.enabled=true");
    }

    /** Another page of the application, which Boot's default chain guards. */
    static final class Hello extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws java.io.IOException {
            resp.getWriter().write("hello");
        }
    }

    @Test
    final void withSpringSecurityTheApplicationsUsersAndAuthoritiesDecide() {
        withSpringSecurity().run(context -> {
            assertThat(context).hasNotFailed().hasBean(ConsoleSecurityConfiguration.BEAN_NAME);
            Http http = new Http(BootLine.port(context.getSourceApplicationContext()));
            HttpResponse<String> anonymous = http.get("/postbox/api/me", null, null);
            assertThat(anonymous.statusCode()).isEqualTo(401);
            assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Basic"));
            HttpResponse<String> page = http.send(http.request("/postbox/", null, null).header("Accept", "text/html").build());
            assertThat(page.statusCode()).as("a browser goes to the application's login").isEqualTo(302);
            assertThat(page.headers().firstValue("Location")).hasValueSatisfying(v -> assertThat(v).endsWith("/login"));
            assertThat(http.get("/hello", null, null).statusCode()).as("Boot's default chain still guards the rest")
                    .isIn(401, 302);
            assertThat(http.get("/hello", "sam", PASSWORD).body()).isEqualTo("hello");

            assertThat(http.get("/postbox/api/me", "sam", PASSWORD).body()).contains("\"permissions\":[]");
            assertThat(http.get("/postbox/api/overview", "sam", PASSWORD).statusCode()).as("no console authority").isEqualTo(403);
            assertThat(http.get("/postbox/api/me", "ada", PASSWORD).body()).contains("REVEAL_PAYLOAD");
            deadEvent(context, http, "vera");
            assertThat(http.post(EVENT + "/retry", "vera", PASSWORD, http.csrf("/postbox", "vera", PASSWORD),
                    reason("viewer")).statusCode()).isEqualTo(403);
            String ottoCsrf = http.csrf("/postbox", "otto", PASSWORD);
            assertThat(http.post(EVENT + "/payload", "otto", PASSWORD, ottoCsrf, reason("curious")).statusCode())
                    .isEqualTo(403);
            assertThat(http.post(EVENT + "/payload", "rita", PASSWORD, http.csrf("/postbox", "rita", PASSWORD),
                    reason("granted")).statusCode()).isEqualTo(200);
            HttpResponse<String> noCsrf = http.post(EVENT + "/retry", "otto", PASSWORD, null, reason("no token"));
            assertThat(noCsrf.statusCode()).isEqualTo(403);
            assertThat(noCsrf.body()).as("the console's own CSRF check answered").contains("\"error\":\"csrf\"");
            HttpResponse<String> retry = http.post(EVENT + "/retry", "otto", PASSWORD, ottoCsrf, reason("fixed"));
            assertThat(retry.statusCode()).as("no Spring CSRF token needed: " + retry.body()).isEqualTo(200);
            assertThat(http.get("/postbox/api/audit", "vera", PASSWORD).body()).contains("\"actor\":\"otto\"")
                    .contains("\"actor\":\"rita\"");
        });
    }

    @Test
    final void withSpringSecurityTheAuthorityNamesAreConfigurable() {
        withSpringSecurity().withPropertyValues("postbox.console.security.operator-authority=ROLE_USER").run(context -> {
            Http http = new Http(BootLine.port(context.getSourceApplicationContext()));
            assertThat(http.get("/postbox/api/me", "sam", PASSWORD).body()).contains("RETRY");
            assertThat(http.get("/postbox/api/me", "otto", PASSWORD).body()).contains("\"permissions\":[]");
        });
    }

    @Test
    final void withSpringSecurityConfiguredUsersAreRefused() {
        withSpringSecurity().withPropertyValues("postbox.console.users[0].name=vera",
                "postbox.console.users[0].password-hash=" + HASH).run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageStartingWith("postbox.console.users: are not used: the console"
                        + " authenticates through Spring Security"));
    }
}
