package dev.postbox.server;

import com.sun.net.httpserver.HttpServer;
import dev.postbox.Postbox;
import dev.postbox.console.PasswordHash;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.server.config.ConfigLoader;
import dev.postbox.server.config.ServerConfig;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A person fixes a failure through the server's console, in headless Chromium: an event its HTTP destination refused
 * (400, so DEAD) shows on the orders source's console at {@code /console/orders/}; the operator signs in (a console
 * user of the server's file), finds it, retries it with a reason once the endpoint accepts, and the server publishes
 * it. The billing source's console, beside it, shows only billing's events. Screenshots in
 * {@code postbox-server/target/screenshots/}.
 */
class ServerConsoleBrowserTest {

    static final String CHROMIUM = "/usr/bin/chromium";
    static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    static final String PASSWORD = "a console password";

    @Test
    void anOperatorRetriesADeadEventThroughTheServersConsole() throws Exception {
        assertThat(new File(CHROMIUM).canExecute()).as(CHROMIUM + " (scripts/services.sh installs it)").isTrue();
        assertThat(new File(CHROMEDRIVER).canExecute()).as(CHROMEDRIVER + " (scripts/services.sh installs it)").isTrue();
        AtomicBoolean refuse = new AtomicBoolean(true);
        HttpServer hook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        hook.createContext("/hook", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(refuse.get() ? 400 : 204, -1);
            exchange.close();
        });
        hook.start();
        Path profile = Files.createTempDirectory("postbox-server-chromium-");
        Path screenshots = Path.of("target", "screenshots");
        Files.createDirectories(screenshots);
        WebDriver browser = null;
        try (TestDatabase orders = TestDatabase.postgres(null); TestDatabase billing = TestDatabase.mariadb(null)) {
            Postbox ordersPostbox = Postbox.builder(orders.dataSource()).source("test").build();
            ordersPostbox.schema().install();
            Postbox billingPostbox = Postbox.builder(billing.dataSource()).source("test").build();
            billingPostbox.schema().install();
            write(orders, ordersPostbox, "ORDER_CREATED:ORD-7");
            write(billing, billingPostbox, "INVOICE_ISSUED:INV-3");
            String hash = PasswordHash.create(PASSWORD.toCharArray(), PasswordHash.MIN_ITERATIONS);
            String yaml = """
                    server:
                      address: 127.0.0.1
                      port: 0
                      console: {users: {olga: {password-hash: '%s', role: operator}}}
                    sources:
                      orders: {jdbc-url: '%s', username: %s, relay: {poll-interval-max: 100ms}}
                      billing: {jdbc-url: '%s', username: %s, relay: {poll-interval-max: 100ms}}
                    destinations:
                      hook: {type: http, url: 'http://127.0.0.1:%d/hook'}
                    routes:
                      - {source: orders, channel: HTTP, destination: hook}
                      - {source: billing, channel: HTTP, destination: hook}
                    """.formatted(hash, orders.jdbcUrl(), orders.user(), billing.jdbcUrl(), billing.user(),
                    hook.getAddress().getPort());
            ServerConfig config = new ConfigLoader(k -> null).parse("server.yml", yaml);
            try (RelayServer server = RelayServer.start(config)) {
                await(() -> status(ordersPostbox, "ORDER_CREATED:ORD-7") == OutboxStatus.DEAD);
                ChromeOptions options = new ChromeOptions();
                options.setBinary(CHROMIUM);
                options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                        "--disable-dev-shm-usage", "--user-data-dir=" + profile, "--window-size=1400,1000", "--lang=en-US");
                browser = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER))
                        .usingAnyFreePort().build(), options);
                WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
                String base = "http://127.0.0.1:" + server.port();

                browser.get(base + "/");
                assertThat(browser.findElement(By.cssSelector("a[href='/console/orders/']")).getText()).isEqualTo("orders");
                browser.get(base.replace("http://", "http://olga:" + PASSWORD.replace(" ", "%20") + "@") + "/console/orders/");
                browser.get(base + "/console/orders/#/overview");
                wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("[data-test=me]"), "olga"));
                WebElement card = wait.until(ExpectedConditions.visibilityOfElementLocated(
                        By.cssSelector("[data-test=backlog-card][data-kind=outbox]")));
                wait.until(d -> card.findElement(By.cssSelector("[data-test=backlog-dead]")).getText().equals("1"));
                shot(browser, screenshots, "server-01-orders-overview");

                browser.get(base + "/console/orders/#/search?q=ORD-7");
                WebElement row = wait.until(ExpectedConditions.visibilityOfElementLocated(
                        By.cssSelector("[data-test=result-row][data-event-no='ORDER_CREATED:ORD-7']")));
                assertThat(row.getText()).contains("DEAD").contains("400");
                row.findElement(By.cssSelector("[data-test=result-link]")).click();
                wait.until(ExpectedConditions.visibilityOfElementLocated(
                        By.cssSelector("[data-test=event-detail][data-status=DEAD]")));
                shot(browser, screenshots, "server-02-dead-event");

                refuse.set(false); // the endpoint is fixed
                wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[data-test=retry-button]"))).click();
                wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[data-test=reason-input]")))
                        .sendKeys("endpoint fixed");
                browser.findElement(By.cssSelector("[data-test=confirm-button]")).click();
                assertThat(wait.until(ExpectedConditions.visibilityOfElementLocated(
                        By.cssSelector("[data-test=action-result]"))).getText()).contains("PENDING");
                await(() -> status(ordersPostbox, "ORDER_CREATED:ORD-7") == OutboxStatus.PUBLISHED);
                browser.navigate().refresh();
                wait.until(ExpectedConditions.visibilityOfElementLocated(
                        By.cssSelector("[data-test=event-detail][data-status=PUBLISHED]")));
                shot(browser, screenshots, "server-03-retried-published");

                browser.get(base + "/console/billing/#/search?q=ORD-7");
                wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[data-test=search-empty]")));
                browser.get(base + "/console/billing/#/search?q=INV-3");
                wait.until(ExpectedConditions.visibilityOfElementLocated(
                        By.cssSelector("[data-test=result-row][data-event-no='INVOICE_ISSUED:INV-3']")));
                shot(browser, screenshots, "server-04-billing-console");
                assertThat(browser.findElement(By.cssSelector("[data-test=error-banner]")).isDisplayed()).isFalse();
            }
        } finally {
            if (browser != null) {
                browser.quit();
            }
            hook.stop(0);
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void write(TestDatabase db, Postbox postbox, String no) throws Exception {
        try (java.sql.Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().write(c, OutboxEvent.builder().eventNo(no).aggregate("ORDER", no.substring(no.indexOf(':') + 1))
                    .eventType(no.substring(0, no.indexOf(':'))).channel("HTTP").topic("t").payload("{}").build());
            c.commit();
        }
    }

    private static OutboxStatus status(Postbox postbox, String no) {
        return postbox.queries().outbox().byEventNo(no).orElseThrow().status();
    }

    private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() < deadline).as("within 30 s").isTrue();
            Thread.sleep(50);
        }
    }

    private static void shot(WebDriver browser, Path dir, String name) throws Exception {
        Files.write(dir.resolve(name + ".png"), ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }
}
