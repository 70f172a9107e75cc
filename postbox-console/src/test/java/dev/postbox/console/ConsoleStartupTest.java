package dev.postbox.console;

import dev.postbox.Postbox;
import dev.postbox.common.ValidationException;
import dev.postbox.operations.Operations;
import dev.postbox.operations.OperationsConfig;
import dev.postbox.operations.Operator;
import dev.postbox.operations.Role;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Nothing is exposed without authentication: what the builders and the server refuse, on H2. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleStartupTest {

    private TestDatabase db;
    private Operations operations;

    @BeforeAll
    void database() {
        db = TestDatabase.h2();
        Postbox postbox = Postbox.builder(db.dataSource()).source("test").build();
        postbox.schema().install();
        operations = postbox.operations(OperationsConfig.defaults());
    }

    @AfterAll
    void close() {
        db.close();
    }

    @Test
    void aConsoleWithoutAnAuthenticatorIsRefusedAtBuild() {
        assertThatThrownBy(() -> ConsoleApi.builder(operations).build())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("authenticator"))
                .hasMessageContaining("insecureNoAuthentication");
        assertThatThrownBy(() -> ConsoleApi.builder(operations).authenticator(ConsoleFixture.users())
                .insecureNoAuthentication(Operator.of("dev", Role.ADMIN)).build())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("authenticator"));
        assertThatThrownBy(() -> ConsoleApi.builder(operations).maxBodyBytes(10))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("maxBodyBytes"));
        assertThatThrownBy(() -> ConsoleApi.builder(operations).csrfSecret(new byte[8]))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("csrfSecret"));
    }

    @Test
    void anInsecureConsoleListensOnLoopbackOnlyAndAnswersOnlyLoopbackClients() throws Exception {
        try (ConsoleApi api = ConsoleApi.builder(operations).insecureNoAuthentication(Operator.of("dev", Role.VIEWER)).build()) {
            Optional<String> outside = nonLoopbackAddress();
            List<String> hosts = new java.util.ArrayList<>(List.of("0.0.0.0"));
            outside.ifPresent(hosts::add);
            for (String host : hosts) {
                assertThatThrownBy(() -> ConsoleServer.builder(api).host(host).port(0).start())
                        .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("host"))
                        .hasMessageContaining("not a loopback address");
            }
            try (ConsoleServer server = ConsoleServer.builder(api).host("127.0.0.1").port(0).start()) {
                ConsoleClient.Res me = new ConsoleClient(server.uri()).get(null, "api/me");
                assertThat(me.status()).isEqualTo(200);
                assertThat(me.json().get("name")).isEqualTo("dev");
            }
            ConsoleResponse remote = api.handle(new ConsoleRequest("GET", "/api/me", Map.of(), Map.of(), null, "192.0.2.7"));
            assertThat(remote.status()).isEqualTo(403);
            assertThat(remote.text()).contains("insecure_remote");
            ConsoleResponse unknown = api.handle(new ConsoleRequest("GET", "/api/me", Map.of(), Map.of(), null, null));
            assertThat(unknown.status()).isEqualTo(403);
            assertThat(api.handle(new ConsoleRequest("GET", "/api/me", Map.of(), Map.of(), null, "::1")).status()).isEqualTo(200);
            assertThat(api.handle(new ConsoleRequest("GET", "/api/me", Map.of(), Map.of(), null, "localhost")).status())
                    .as("names are never resolved").isEqualTo(403);
        }
    }

    @Test
    void anAuthenticatedConsoleMayListenAnywhereAndTheMountPathIsChecked() throws Exception {
        try (ConsoleApi api = ConsoleApi.builder(operations).authenticator(ConsoleFixture.users()).build()) {
            try (ConsoleServer server = ConsoleServer.builder(api).host("0.0.0.0").port(0).path("/ops/console/").start()) {
                assertThat(server.uri().getPath()).isEqualTo("/ops/console/");
                assertThat(new ConsoleClient(java.net.URI.create("http://127.0.0.1:" + server.port() + "/ops/console/"))
                        .get(ConsoleFixture.VIEWER, "api/me").status()).isEqualTo(200);
            }
            for (String bad : new String[] {"postbox", "/a b", "/a/../b", "/a?x"}) {
                assertThatThrownBy(() -> ConsoleServer.builder(api).path(bad)).as(bad)
                        .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("path"));
            }
            assertThatThrownBy(() -> ConsoleServer.builder(api).port(70_000))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("port"));
        }
    }

    private static Optional<String> nonLoopbackAddress() throws Exception {
        for (NetworkInterface n : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress a : Collections.list(n.getInetAddresses())) {
                if (!a.isLoopbackAddress() && a instanceof java.net.Inet4Address) {
                    return Optional.of(a.getHostAddress());
                }
            }
        }
        return Optional.empty();
    }
}
