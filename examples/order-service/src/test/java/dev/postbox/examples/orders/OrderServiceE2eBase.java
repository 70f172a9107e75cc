package dev.postbox.examples.orders;

import dev.postbox.Postbox;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import javax.sql.DataSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole application on a random port over a real database: requests go through the JDK HttpClient, checks
 * read the tables directly. Each concrete class binds one {@link TestDatabase}, given to Spring as
 * {@code spring.datasource.*}, and drops it at the end of the run, after its context was closed.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DirtiesContext
@ExtendWith(OrderServiceE2eBase.DropDatabaseAtEnd.class)
public abstract class OrderServiceE2eBase {

    protected static final JsonMapper JSON = JsonMapper.builder().build();

    @LocalServerPort
    protected int port;
    @Autowired
    protected DataSource dataSource;
    @Autowired
    protected Postbox postbox;

    protected final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /** The database of the concrete class (static, because Spring reads its URL before the instance exists). */
    protected abstract TestDatabase database();

    /** Gives {@code db} to Spring; a PostgreSQL URL must carry the schema, so that Postbox's tables land in it too. */
    protected static void register(DynamicPropertyRegistry registry, TestDatabase db) {
        if (!db.kind().equals("postgresql") && !db.kind().equals("h2")) {
            throw new IllegalArgumentException("no URL for a " + db.kind() + " test database");
        }
        String url = db.jdbcUrl();
        if (db.kind().equals("postgresql") && !url.contains("currentSchema=")) {
            throw new IllegalStateException("PostgreSQL test URL without currentSchema: " + url);
        }
        String user = db.user();
        registry.add("spring.datasource.url", () -> url);
        registry.add("spring.datasource.username", () -> user);
        registry.add("spring.datasource.password", () -> "");
    }

    /**
     * Drops the class's database when the whole test run ends: by then {@link DirtiesContext} has closed the
     * class's context (relay, jobs and pools stopped), so nothing is using the schema when it goes.
     */
    static final class DropDatabaseAtEnd implements BeforeAllCallback {
        @Override
        public void beforeAll(ExtensionContext context) {
            OrderServiceE2eBase test = (OrderServiceE2eBase) context.getRequiredTestInstance();
            TestDatabase db = test.database();
            context.getRoot().getStore(ExtensionContext.Namespace.create(DropDatabaseAtEnd.class))
                    .put(context.getRequiredTestClass().getName(), (ExtensionContext.Store.CloseableResource) db::close);
        }
    }

    protected JdbcClient sql() {
        return JdbcClient.create(dataSource);
    }

    protected HttpResponse<String> post(String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    protected HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    protected static JsonNode json(HttpResponse<String> response) {
        return JSON.readTree(response.body());
    }

    /** Places one order and returns its number, asserting 201 CREATED. */
    protected String place(String userId, String sku, int quantity, String amount) throws Exception {
        HttpResponse<String> r = post("/orders", """
                {"userId":"%s","sku":"%s","quantity":%d,"amount":"%s"}""".formatted(userId, sku, quantity, amount));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        JsonNode body = json(r);
        assertThat(body.path("status").asString()).isEqualTo("CREATED");
        assertThat(r.headers().firstValue("Location")).hasValue("/orders/" + body.path("orderNo").asString());
        return body.path("orderNo").asString();
    }

    protected long count(String query, Object... params) {
        var spec = sql().sql(query);
        for (Object p : params) {
            spec = spec.param(p);
        }
        return spec.query(Long.class).single();
    }

    /** Polls {@code condition} every 20 ms until it holds or {@code timeout} passed; returns whether it held. */
    protected static boolean await(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (condition.getAsBoolean()) {
                return true;
            }
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(20);
        }
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }
}
